import { Injectable } from '@nestjs/common';
import { DatabaseService } from '@nestclaw/db';

export interface ChannelActivity {
  channel: string;
  lastInboundAt: Date | null;
  lastOutboundAt: Date | null;
}

/** When each channel last received and last delivered a message, from the inbound queue and the outbound send record. */
@Injectable()
export class ChannelActivityRepository {
  constructor(private readonly db: DatabaseService) {}

  /**
   * The newest row by id per channel (ids grow with time; the primary key is read backwards, so a
   * long history costs no scan of it). An outbound row counts once delivered (`preview` or `sent`):
   * one still `pending` or `orphaned` never reached the platform.
   */
  async lastEvents(channels: readonly string[]): Promise<ChannelActivity[]> {
    const { rows } = await this.db.query<ChannelActivity>(
      `SELECT c.channel,
              (SELECT received_at FROM inbound_messages i WHERE i.channel = c.channel ORDER BY i.id DESC LIMIT 1) AS "lastInboundAt",
              (SELECT created_at FROM outbound_messages o
                WHERE o.channel = c.channel AND o.status IN ('preview', 'sent') ORDER BY o.id DESC LIMIT 1) AS "lastOutboundAt"
         FROM unnest($1::text[]) AS c(channel)`,
      [[...channels]],
    );
    return rows;
  }
}
