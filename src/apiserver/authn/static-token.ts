// Bearer tokens known up front: the --token-auth-file entries and the
// in-memory admin token of --admin-platformconfig. A map lookup; never blocks.
import type { UserInfo } from '../types.js';
import { loadTokenFile } from './token-file.js';
import type { TokenAuthenticator } from './types.js';

export class StaticTokenAuthenticator implements TokenAuthenticator {
  private readonly tokens: Map<string, UserInfo>;

  constructor(tokens: ReadonlyMap<string, UserInfo> = new Map()) {
    this.tokens = new Map(tokens);
  }

  /** Adds (or replaces) one token; the composition root adds the admin token before the server listens. */
  add(token: string, user: UserInfo): void {
    this.tokens.set(token, user);
  }

  authenticate(token: string): Promise<UserInfo | undefined> {
    const user = this.tokens.get(token);
    return Promise.resolve(user);
  }
}

/**
 * The authenticator of --token-auth-file ('' = none yet), built once at start
 * by whoever composes the server first (the back end, so its TokenReview asks
 * the same tokens as the front; main.ts when run without one). Logs the
 * file's warnings; throws the file's AgentError.
 */
export async function staticTokensFromFile(path: string, log: { warn(msg: string): void }): Promise<StaticTokenAuthenticator> {
  const statics = new StaticTokenAuthenticator();
  if (path === '') return statics;
  const file = await loadTokenFile(path);
  for (const [token, user] of file.tokens) statics.add(token, user);
  for (const w of file.warnings) log.warn(w);
  return statics;
}
