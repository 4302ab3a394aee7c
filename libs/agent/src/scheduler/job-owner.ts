/**
 * Who a job belongs to (scheduled_jobs.owner_id): NULL is the owner, a bare id is a paired API
 * token (a UUID), and `<channel>:<sender id>` is a person in a chat (a job made there with /cron or
 * the cron tool). Token ids never contain a colon, so the two cannot be confused.
 */
export const isTokenOwner = (ownerId: string) => !ownerId.includes(':');

/**
 * The owner id for a person as `personOf` (memory scope) names them: `owner` is the owner
 * (undefined: sees every job), `token:<id>` a paired token, `<channel>:<id>` a chat person, and a
 * name linked in `session.identity_links` becomes `person:<name>` (a colon keeps it apart from tokens).
 */
export function ownerOfPerson(person: string): string | undefined {
  if (person === 'owner') return undefined;
  if (person.startsWith('token:')) return person.slice('token:'.length);
  return person.includes(':') ? person : `person:${person}`;
}
