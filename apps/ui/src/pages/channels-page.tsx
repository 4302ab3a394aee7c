import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { ChannelAccess, ChannelAllowlists } from '../channels/channel-allowlists';
import { SecurityChange } from '../channels/security-change';
import { ErrorAlert, StatusLine } from '../components/page-notices';
import { language, t } from '../i18n/i18n';

type ChannelState = 'running' | 'connecting' | 'failed' | 'stopped';

interface Channel {
  id: string;
  state: ChannelState;
  error: string | null;
  receiver: { replica: string; self: boolean; since: string } | null;
  lastInboundAt: string | null;
  lastOutboundAt: string | null;
  pendingPairings: number;
}

interface PairingRequest {
  channel: string;
  code: string;
  senderId: string;
  senderName: string | null;
  createdAt: string;
  expiresAt: string;
}

interface PairedToken {
  id: string;
  name: string;
  scopes: string[];
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString(language()) : t('channels.never'));
const senderOf = (r: PairingRequest) => (r.senderName ? `${r.senderName} (${r.senderId})` : r.senderId);

function stateText(c: Channel): string {
  if (c.state === 'failed') return t('channels.state.failed', { error: c.error ?? '' });
  return t(`channels.state.${c.state}`);
}

/** Each chat channel's connection and allowlist, strangers waiting for access (approve / deny), and the paired API tokens (revoke). */
export function ChannelsPage() {
  const [channels, setChannels] = useState<Channel[] | null>(null);
  const [requests, setRequests] = useState<PairingRequest[]>([]);
  const [tokens, setTokens] = useState<PairedToken[]>([]);
  const [access, setAccess] = useState<ChannelAccess[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const fail = (e: unknown) => setError(t('error.generic', { message: messageOf(e) }));
  const load = async () => {
    const [c, p, k, a] = await Promise.all([
      api<{ channels: Channel[] }>('/v1/channels'),
      api<{ requests: PairingRequest[] }>('/v1/pairing'),
      api<{ tokens: PairedToken[] }>('/v1/tokens'),
      api<{ channels: ChannelAccess[] }>('/v1/channels/access'),
    ]);
    setChannels(c.channels);
    setRequests(p.requests);
    setTokens(k.tokens);
    setAccess(a.channels);
    setError(null);
  };
  /** Runs one decision, reloads everything it may have changed, then says what happened. */
  const act = (work: () => Promise<unknown>, done: string) =>
    void work()
      .then(load)
      .then(() => setStatus(done))
      .catch(fail);
  useEffect(() => void load().catch(fail), []);

  return (
    <section class="page" aria-labelledby="channels-title">
      <header class="page-header">
        <h1 id="channels-title">{t('channels.title')}</h1>
        <button type="button" onClick={() => void load().catch(fail)}>
          {t('channels.refresh')}
        </button>
      </header>
      <ErrorAlert error={error} />
      <StatusLine status={status} />

      <h2>{t('channels.channels')}</h2>
      {channels?.length === 0 && <p class="empty">{t('channels.none')}</p>}
      {channels && channels.length > 0 && (
        <div class="table-scroll">
          <table class="channels-table">
            <thead>
              <tr>
                <th scope="col">{t('channels.channel')}</th>
                <th scope="col">{t('channels.state')}</th>
                <th scope="col">{t('channels.receiver')}</th>
                <th scope="col">{t('channels.lastInbound')}</th>
                <th scope="col">{t('channels.lastOutbound')}</th>
                <th scope="col">{t('channels.pending')}</th>
              </tr>
            </thead>
            <tbody>
              {channels.map((c) => (
                <tr key={c.id}>
                  <th scope="row">{c.id}</th>
                  <td>
                    <span class={`state state-${c.state}`}>{stateText(c)}</span>
                  </td>
                  <td class="mono">
                    {c.receiver
                      ? c.receiver.self
                        ? t('channels.thisReplica', { replica: c.receiver.replica })
                        : c.receiver.replica
                      : t('channels.noReceiver')}
                  </td>
                  <td>{when(c.lastInboundAt)}</td>
                  <td>{when(c.lastOutboundAt)}</td>
                  <td>{c.pendingPairings}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}

      {access.length > 0 && <ChannelAllowlists channels={access} />}

      <h2>{t('pairing.title')}</h2>
      {requests.length === 0 ? (
        <p class="empty">{t('pairing.none')}</p>
      ) : (
        <div class="table-scroll">
          <table class="pairing-table">
            <thead>
              <tr>
                <th scope="col">{t('channels.channel')}</th>
                <th scope="col">{t('pairing.sender')}</th>
                <th scope="col">{t('pairing.code')}</th>
                <th scope="col">{t('pairing.requested')}</th>
                <th scope="col">{t('pairing.expires')}</th>
                <th scope="col">{t('pairing.actions')}</th>
              </tr>
            </thead>
            <tbody>
              {requests.map((r) => {
                const sender = senderOf(r);
                const body = { channel: r.channel, code: r.code };
                return (
                  <tr key={`${r.channel}:${r.code}`}>
                    <td>{r.channel}</td>
                    <td>{sender}</td>
                    <td class="mono">{r.code}</td>
                    <td>{when(r.createdAt)}</td>
                    <td>{when(r.expiresAt)}</td>
                    <td class="actions">
                      <button
                        type="button"
                        class="primary"
                        aria-label={t('pairing.approve', { sender })}
                        onClick={() =>
                          act(() => api('/v1/pairing/approve', { json: body }), t('pairing.approved', { sender, channel: r.channel }))
                        }
                      >
                        {t('approval.approve')}
                      </button>
                      <button
                        type="button"
                        class="danger"
                        aria-label={t('pairing.deny', { sender })}
                        onClick={() => act(() => api('/v1/pairing/deny', { json: body }), t('pairing.denied', { sender }))}
                      >
                        {t('approval.deny')}
                      </button>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}

      <h2>{t('tokens.title')}</h2>
      {tokens.length === 0 ? (
        <p class="empty">{t('tokens.none')}</p>
      ) : (
        <div class="table-scroll">
          <table class="tokens-table">
            <thead>
              <tr>
                <th scope="col">{t('tokens.name')}</th>
                <th scope="col">{t('tokens.scopes')}</th>
                <th scope="col">{t('tokens.created')}</th>
                <th scope="col">{t('tokens.lastUsed')}</th>
                <th scope="col">{t('tokens.status')}</th>
              </tr>
            </thead>
            <tbody>
              {tokens.map((k) => (
                <tr key={k.id}>
                  <th scope="row">{k.name}</th>
                  <td>{k.scopes.join(', ')}</td>
                  <td>{when(k.createdAt)}</td>
                  <td>{when(k.lastUsedAt)}</td>
                  <td>
                    {k.revokedAt ? (
                      t('tokens.revokedAt', { when: when(k.revokedAt) })
                    ) : (
                      <>
                        {t('tokens.active')}{' '}
                        <button
                          type="button"
                          class="danger"
                          aria-label={t('tokens.revoke', { name: k.name })}
                          onClick={() =>
                            act(
                              () => api(`/v1/tokens/${encodeURIComponent(k.id)}`, { method: 'DELETE' }),
                              t('tokens.revoked', { name: k.name }),
                            )
                          }
                        >
                          {t('tokens.revokeButton')}
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <SecurityChange onApplied={() => void load().catch(fail)} />
    </section>
  );
}
