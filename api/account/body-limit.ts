/** Request bodies of the account API (contacts, lists, forms…); imports upload their files apart. */
export const ACCOUNT_BODY_LIMIT_BYTES = 1024 * 1024;
