import { keysFor } from './prompt-keys';
import type { ScreenPrompt } from './screen-reader';

const yesNo: ScreenPrompt = { kind: 'yes-no', text: 'Run rm -rf build? [y/N]', end: 0 };
const menu = (cursor: number): ScreenPrompt => ({
  kind: 'menu',
  text: '…',
  end: 3,
  cursor,
  options: [
    { digit: 1, label: 'Yes' },
    { digit: 2, label: "Yes, and don't ask again" },
    { digit: 3, label: 'No' },
  ],
});

describe('prompt keys', () => {
  it('answers a [y/N] prompt with y or n, then Enter', () => {
    expect(keysFor(yesNo, 'approve')).toEqual(['y', 'Enter']);
    expect(keysFor(yesNo, 'deny')).toEqual(['n', 'Enter']);
  });

  it('answers an expired [y/N] prompt with n (the safe choice)', () => {
    expect(keysFor(yesNo, 'expired')).toEqual(['n', 'Enter']);
  });

  it('moves the menu cursor to the Yes or No option, then Enter', () => {
    expect(keysFor(menu(0), 'approve')).toEqual(['Enter']);
    expect(keysFor(menu(0), 'deny')).toEqual(['Down', 'Down', 'Enter']);
    expect(keysFor(menu(2), 'approve')).toEqual(['Up', 'Up', 'Enter']);
  });

  it('cancels a menu with Esc when it expired or has no No option', () => {
    expect(keysFor(menu(0), 'expired')).toEqual(['Escape']);
    const noNo: ScreenPrompt = {
      kind: 'menu',
      text: '…',
      end: 1,
      cursor: 0,
      options: [
        { digit: 1, label: 'Yes' },
        { digit: 2, label: 'Always' },
      ],
    };
    expect(keysFor(noNo, 'deny')).toEqual(['Escape']);
  });
});
