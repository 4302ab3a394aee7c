import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';
import type { ToolCall } from '@nestclaw/provider';
import type { SessionSummary, StoredMessage } from './session.types';

/** Sessions as the API lists them: existence, the most recent ones, a transcript page (Prisma: ordinary reads). */
@Injectable()
export class SessionRepository {
  constructor(private readonly db: DatabaseService) {}

  async exists(sessionId: string): Promise<boolean> {
    const n = await this.db.prisma.session.count({ where: { id: sessionId } });
    return n > 0;
  }

  async listRecent(limit: number, before?: Date): Promise<SessionSummary[]> {
    const rows = await this.db.prisma.session.findMany({
      where: before ? { updatedAt: { lt: before } } : undefined,
      orderBy: { updatedAt: 'desc' },
      take: limit,
      include: { _count: { select: { messages: true } } },
    });
    return rows.map((r) => ({
      id: r.id,
      agentId: r.agentId,
      channel: r.channel,
      title: r.title,
      messageCount: r._count.messages,
      inputTokens: Number(r.inputTokens),
      outputTokens: Number(r.outputTokens),
      costUsd: Number(r.costUsd),
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    }));
  }

  async listMessages(sessionId: string, afterSeq: number, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.prisma.message.findMany({
      where: { sessionId, seq: { gt: afterSeq } },
      orderBy: { seq: 'asc' },
      take: limit,
    });
    return rows.map(toStoredMessage);
  }

  /** The `limit` messages just before `beforeSeq` (the newest ones when it is null), in order. */
  async listMessagesBefore(sessionId: string, beforeSeq: number | null, limit: number): Promise<StoredMessage[]> {
    const rows = await this.db.prisma.message.findMany({
      where: { sessionId, ...(beforeSeq === null ? {} : { seq: { lt: beforeSeq } }) },
      orderBy: { seq: 'desc' },
      take: limit,
    });
    return rows.reverse().map(toStoredMessage);
  }
}

type MessageRow = Awaited<ReturnType<DatabaseService['prisma']['message']['findMany']>>[number];

function toStoredMessage(r: MessageRow): StoredMessage {
  return {
    seq: r.seq,
    turnId: r.turnId,
    role: r.role as StoredMessage['role'],
    content: r.content,
    toolCalls: (r.toolCalls as ToolCall[] | null) ?? null,
    toolCallId: r.toolCallId,
    toolName: r.toolName,
    status: r.status,
    createdAt: r.createdAt.toISOString(),
  };
}
