import type { Interface } from 'node:readline';
import { ApprovalApiError, GatewayApprovalsClient, MAX_LIST } from '../approvals/gateway-approvals.client';
import { decideCommands, describeCall, describeExpiry } from '../approvals/approval-view';
import { dim, green, messageOf, note, red, yellow } from '../cli-output';

export type ApprovalAnswer = 'approve' | 'remember' | 'deny';

/** `y`/`yes`/`a` approve once, `r`/`remember`/`always` approve and remember, `n`/`no`/`d` deny. */
export function parseAnswer(text: string): ApprovalAnswer | undefined {
  const t = text.trim().toLowerCase();
  if (['y', 'yes', 'a', 'approve', 'once'].includes(t)) return 'approve';
  if (['r', 'remember', 'always'].includes(t)) return 'remember';
  if (['n', 'no', 'd', 'deny'].includes(t)) return 'deny';
  return undefined;
}

const QUESTION = 'approve? [y] once, [r] remember (approve this exact call from now on), [n] deny: ';

/**
 * One tool call waiting for approval inside `nestclaw chat`: shown in full, then asked inline on a
 * terminal, or (piped input, or a token without the `approve` scope) printed with the commands that
 * decide it while the turn waits. The turn moving on without our answer (decided elsewhere, expired)
 * takes the question away; Ctrl-C takes it away and, once the turn has stopped, denies the call so
 * it cannot run later behind the user's back.
 */
export class ApprovalPrompt {
  private readonly question = new AbortController();
  private settled = false;
  private interrupted = false;

  constructor(
    private readonly id: string,
    private readonly rl: Interface,
    private readonly interactive: boolean,
    private readonly approvals: GatewayApprovalsClient,
  ) {}

  async run(tool: string, input: unknown): Promise<void> {
    const expiry = await this.expiry();
    note(yellow(`approval needed: ${this.id} (${expiry.text})`));
    for (const line of describeCall(tool, input)) note(`  ${line}`);
    if (this.settled) return;
    if (!this.interactive || !expiry.canDecide) return this.explainWaiting(expiry.canDecide);
    while (!this.settled) {
      const answer = await this.ask();
      if (answer === undefined || this.settled) return;
      const decision = parseAnswer(answer);
      if (!decision) {
        note(dim('answer y, r or n (Ctrl-C cancels the turn)'));
        continue;
      }
      await this.decide(decision);
    }
  }

  /** The turn went on (a decision from elsewhere, an expiry, an error): stop asking. */
  dismiss(): void {
    if (this.settled) return;
    this.settled = true;
    this.question.abort();
    if (this.interactive) note(dim(`(approval ${this.id.slice(0, 8)} was decided elsewhere or expired; the turn goes on)`));
  }

  /** Ctrl-C while the call waits: stop asking; `denyAfterCancel` runs once the turn has stopped. */
  interrupt(): void {
    if (this.settled) return;
    this.settled = true;
    this.interrupted = true;
    this.question.abort();
  }

  /**
   * After Ctrl-C: the cancelled turn stays paused on the gateway and would run the call if someone
   * approved it later, holding the session until then. Denying it closes that door.
   */
  async denyAfterCancel(): Promise<void> {
    if (!this.interrupted) return;
    try {
      await this.approvals.decide(this.id, 'deny');
      note(dim(`(approval ${this.id.slice(0, 8)} denied)`));
    } catch (e) {
      if (e instanceof ApprovalApiError && e.status === 409) return; // decided meanwhile: nothing left to deny
      note(red(`could not deny approval ${this.id}: ${messageOf(e)}; run \`nestclaw approvals deny ${this.id}\``));
    }
  }

  private async decide(answer: ApprovalAnswer): Promise<void> {
    try {
      await this.approvals.decide(this.id, answer === 'deny' ? 'deny' : 'approve', answer === 'remember');
      this.settled = true;
      note(answer === 'deny' ? red('(denied)') : green(answer === 'remember' ? '(approved and remembered)' : '(approved)'));
    } catch (e) {
      if (e instanceof ApprovalApiError && e.status === 409) {
        this.settled = true;
        return note(dim(`(${messageOf(e)}: decided elsewhere; the turn goes on)`));
      }
      note(red(`could not send the decision: ${messageOf(e)}`));
      if (e instanceof ApprovalApiError && e.status === 403) {
        this.settled = true;
        this.explainWaiting(false);
      }
    }
  }

  private ask(): Promise<string | undefined> {
    return new Promise((resolve) => {
      if (this.question.signal.aborted) return resolve(undefined);
      this.question.signal.addEventListener('abort', () => resolve(undefined), { once: true });
      this.rl.question(QUESTION, { signal: this.question.signal }, resolve);
    });
  }

  /** Its expiry, from the gateway's list; a 403 there means this token cannot decide approvals. */
  private async expiry(): Promise<{ text: string; canDecide: boolean }> {
    try {
      const found = (await this.approvals.list('pending', MAX_LIST)).find((a) => a.id === this.id);
      return { text: found ? describeExpiry(found.expiresAt) : 'no longer pending', canDecide: true };
    } catch (e) {
      const forbidden = e instanceof ApprovalApiError && (e.status === 401 || e.status === 403);
      return { text: 'expiry unknown: after tools.approval.timeout', canDecide: !forbidden };
    }
  }

  private explainWaiting(canDecide: boolean): void {
    const who = canDecide ? 'from another terminal' : 'with a token that has the `approve` scope (this one has not)';
    note(dim(`waiting for a decision; decide it ${who}:`));
    for (const c of decideCommands(this.id)) note(dim(`  ${c}`));
  }
}
