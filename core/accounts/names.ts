// What an account's name may be: pure, so the CLI checks a name before it loads the store's driver.
/** Lowercase letters and digits only: clients take the account from the key's prefix before '-'. */
export const ACCOUNT_NAME = /^[a-z0-9]{1,40}$/;

/** Paths of the account API that sit where an account name would (`/v2/login`, `/v2/optin/…`). */
export const RESERVED_NAMES = new Set(['login', 'logout', 'openapi', 'optin']);

/** Whether `name` can be an account's: the account API's routes take nothing else for one. */
export function isAccountName(name: string): boolean {
  return ACCOUNT_NAME.test(name) && !RESERVED_NAMES.has(name);
}
