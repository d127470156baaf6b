// Schema pieces the account's resources share.

/** A name: 1 to 100 characters, not only spaces (it is stored trimmed). */
export const name = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } as const;
export const description = { type: 'string', maxLength: 1000 } as const;
