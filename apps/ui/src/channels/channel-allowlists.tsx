import { language, t } from '../i18n/i18n';

/** GET /v1/channels/access: one channel's allowlist as in force, and what anyone else meets. */
export interface ChannelAccess {
  channel: string;
  strangers: { dm: 'pair'; groups: 'allowlist' | 'open' | 'disabled'; requireMention: boolean };
  allowlist: {
    senderId: string;
    source: 'config' | 'paired';
    displayName: string | null;
    addedBy: string | null;
    addedAt: string | null;
  }[];
}

const senderOf = (e: ChannelAccess['allowlist'][number]) => (e.displayName ? `${e.displayName} (${e.senderId})` : e.senderId);

/**
 * Per channel, who may talk to the assistant: `allow_from` from the config file (changed by editing
 * the file and confirming below, never here) and the senders approved through pairing, with when and
 * by whom; then what strangers meet in a DM and in a group.
 */
export function ChannelAllowlists({ channels }: { channels: ChannelAccess[] }) {
  return (
    <section aria-labelledby="allowlists-title" class="allowlists">
      <h2 id="allowlists-title">{t('access.title')}</h2>
      <p class="hint">{t('access.hint')}</p>
      {channels.map((c) => (
        <section key={c.channel} aria-labelledby={`allowlist-${c.channel}`} class="allowlist" data-channel={c.channel}>
          <h3 id={`allowlist-${c.channel}`}>{c.channel}</h3>
          <p class="hint">
            {t('access.strangers.dm')} {t(`access.groups.${c.strangers.groups}`)}
            {c.strangers.groups !== 'disabled' && c.strangers.requireMention ? ` ${t('access.mention')}` : ''}
          </p>
          {c.allowlist.length === 0 ? (
            <p class="empty">{t('access.none')}</p>
          ) : (
            <div class="table-scroll">
              <table class="allowlist-table">
                <thead>
                  <tr>
                    <th scope="col">{t('pairing.sender')}</th>
                    <th scope="col">{t('access.source')}</th>
                    <th scope="col">{t('access.added')}</th>
                  </tr>
                </thead>
                <tbody>
                  {c.allowlist.map((e) => (
                    <tr key={`${e.source}:${e.senderId}`}>
                      <th scope="row">{senderOf(e)}</th>
                      <td>{t(`access.source.${e.source}`)}</td>
                      <td>
                        {e.addedAt
                          ? t('access.addedBy', { when: new Date(e.addedAt).toLocaleString(language()), who: e.addedBy ?? '' })
                          : '—'}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      ))}
    </section>
  );
}
