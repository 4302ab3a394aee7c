export { CliBridgeModule } from './cli-bridge.module';
export { CliBridge } from './cli-bridge.service';
export type { CliMessage } from './cli-bridge.service';
export { CliStatusService } from './cli-status.service';
export type { CliStatus, CliSessionStatus } from './cli-status.service';
export type { CliCaller } from './cli-caller';
export { TmuxDriver, TMUX_SOCKET } from './tmux/tmux.driver';
export { stripAnsi, findPrompt, hasSpinner, answerSince } from './screen/screen-reader';
