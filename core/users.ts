import { nextId } from './counters';
import { errors, fieldError } from './errors';
import { hashPassword } from './passwords';
import { ALL_PERMISSIONS } from './permissions';
import { isDuplicateKey, type Store, type UserDoc } from './store';

/** Emails are compared case-blind: stored and looked up in lowercase. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** The account's first user: every permission, no email or password (it acts through its API key). */
export async function createOwner(store: Store, account: string): Promise<UserDoc> {
  const now = new Date();
  const id = await nextId(store, account, 'users');
  const owner: UserDoc = {
    _id: `${account}:${id}`, account, id, username: 'owner', passwordExpired: false,
    permissions: [...ALL_PERMISSIONS], created: now, lastModified: now,
  };
  await store.users.insertOne(owner);
  return owner;
}

export interface NewUser { email: string; password: string; permissions?: string[]; passwordExpired?: boolean }

/** Creates a user who logs in with email and password; all permissions unless some are named. */
export async function createUser(store: Store, account: string, input: NewUser): Promise<UserDoc> {
  const email = normaliseEmail(input.email);
  const now = new Date();
  const id = await nextId(store, account, 'users');
  const user: UserDoc = {
    _id: `${account}:${id}`,
    account,
    id,
    email,
    username: email.slice(0, email.lastIndexOf('@')),
    passwordHash: await hashPassword(input.password),
    passwordExpired: input.passwordExpired ?? false,
    permissions: [...new Set(input.permissions ?? ALL_PERMISSIONS)],
    created: now,
    lastModified: now,
  };
  try {
    await store.users.insertOne(user);
  } catch (error) {
    if (isDuplicateKey(error)) throw errors.conflict('A user with this email already exists', { email: fieldError('invalid_value', 'Email already in use in this account') });
    throw error;
  }
  return user;
}

export function findUser(store: Store, account: string, id: number): Promise<UserDoc | null> {
  return store.users.findOne({ _id: `${account}:${id}`, account });
}

/** Removes a user with every key and session of theirs: they stop working at once. */
export async function deleteUser(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.users.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  await store.keys.deleteMany({ account, kind: 'api', userId: id });
  await store.sessions.deleteMany({ account, userId: id });
  return true;
}
