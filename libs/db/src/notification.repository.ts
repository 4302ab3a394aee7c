import type { DatabaseService } from './database.service';

/** Sends one NOTIFY (DatabaseNotifications.publish): the only statement the event bus makes itself. */
export class NotificationRepository {
  constructor(private readonly db: DatabaseService) {}

  /** Delivered at commit to every session listening on `channel`, on every replica. */
  async notify(channel: string, payload: string): Promise<void> {
    await this.db.query(`SELECT pg_notify($1, $2)`, [channel, payload], { name: 'nestclaw_notify' });
  }
}
