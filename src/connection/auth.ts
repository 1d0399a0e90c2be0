/** A token, or a function that returns one (called again after an auth error). */
export type AuthOption = string | (() => string | undefined | Promise<string | undefined>) | undefined;

export async function obtainToken(auth: AuthOption): Promise<string | undefined> {
  return typeof auth === 'function' ? await auth() : auth;
}
