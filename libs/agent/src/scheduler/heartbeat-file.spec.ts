import { actionableHeartbeat } from './heartbeat-file';

describe('actionableHeartbeat', () => {
  it('finds nothing to do in headings, comments, empty bullets and ticked items', () => {
    expect(actionableHeartbeat('# Heartbeat\n\n<!-- add tasks below -->\n- \n- [ ]\n- [x] renewed the domain\n')).toBeUndefined();
    expect(actionableHeartbeat('')).toBeUndefined();
  });

  it('keeps open tasks and plain instructions', () => {
    expect(actionableHeartbeat('# Tasks\n- [ ] check the build\n- [x] done\n每天早上提醒我喝水')).toBe(
      '- [ ] check the build\n每天早上提醒我喝水',
    );
  });
});
