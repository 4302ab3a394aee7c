/**
 * Why a CLI could not be started (its configured user is missing, its program does not speak ACP, …):
 * the message is what the chat is told, so it says what to change.
 */
export class CliStartError extends Error {}
