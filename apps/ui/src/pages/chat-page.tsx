import { useEffect, useState } from 'preact/hooks';
import { api } from '../api';
import { Composer } from '../chat/composer';
import { TranscriptView } from '../chat/transcript-view';
import { useChat } from '../chat/use-chat';
import { t } from '../i18n/i18n';

/** The agents GET /v1/models lists: `nestclaw` (default routing) and `nestclaw/<agentId>`. */
async function listAgents(): Promise<string[]> {
  const { data } = await api<{ data: { id: string }[] }>('/v1/models');
  return data
    .map((m) => m.id)
    .filter((id) => id.startsWith('nestclaw/'))
    .map((id) => id.slice('nestclaw/'.length));
}

export function ChatPage({ canWatch }: { canWatch: boolean }) {
  const chat = useChat(canWatch);
  const [agents, setAgents] = useState<string[]>([]);
  const [agentId, setAgentId] = useState('');
  useEffect(() => {
    listAgents().then(setAgents, () => setAgents([]));
  }, []);
  return (
    <section class="page chat-page" aria-labelledby="chat-title">
      <header class="page-header">
        <h1 id="chat-title">{t('chat.title')}</h1>
        <p class="session-id">{chat.sessionId ? t('chat.session', { id: chat.sessionId }) : t('chat.noSession')}</p>
        <div class="toolbar">
          {agents.length > 1 && (
            <label class="inline-field">
              {t('chat.agent')}
              <select value={agentId} disabled={!!chat.sessionId} onChange={(e) => setAgentId(e.currentTarget.value)}>
                <option value="">{t('chat.agentDefault')}</option>
                {agents.map((a) => (
                  <option key={a} value={a}>
                    {a}
                  </option>
                ))}
              </select>
            </label>
          )}
          <button type="button" onClick={chat.newSession} disabled={chat.running}>
            {t('chat.newSession')}
          </button>
        </div>
      </header>
      {chat.status !== 'open' && (
        <p class="notice info" role="status">
          {chat.status === 'connecting' ? t('chat.connecting') : t('chat.offline')}
        </p>
      )}
      {chat.items.length === 0 ? <p class="empty">{t('chat.empty')}</p> : null}
      <TranscriptView items={chat.items} onApprovalDecided={chat.approvalDecided} onLoadEarlier={chat.loadEarlier} />
      {chat.reattached && (
        <p class="hint" role="status">
          {t('chat.running')}
        </p>
      )}
      <Composer running={chat.running} onSend={(text) => chat.send(text, agentId || undefined)} onStop={chat.stop} />
    </section>
  );
}
