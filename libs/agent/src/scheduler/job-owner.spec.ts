import { isTokenOwner, ownerOfPerson } from './job-owner';

describe('job owners', () => {
  it('maps a person scope to the owner id a job is stored under', () => {
    expect(ownerOfPerson('owner')).toBeUndefined();
    expect(ownerOfPerson('token:0b6c1a2e-5f0e-4a57-9a51-8c2f1d3e4b5a')).toBe('0b6c1a2e-5f0e-4a57-9a51-8c2f1d3e4b5a');
    expect(ownerOfPerson('telegram:1001')).toBe('telegram:1001');
    expect(ownerOfPerson('alice')).toBe('person:alice');
  });

  it('tells a paired token from a chat person or a linked name', () => {
    expect(isTokenOwner('0b6c1a2e-5f0e-4a57-9a51-8c2f1d3e4b5a')).toBe(true);
    expect(isTokenOwner('telegram:1001')).toBe(false);
    expect(isTokenOwner('person:alice')).toBe(false);
  });
});
