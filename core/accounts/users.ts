import { findPage, type Page, type PageRequest } from '../../adapters/store/paging';
import { nextId } from '../../adapters/store/counters';
import { errors, fieldError } from '../shared/errors';
import { hashPassword } from './passwords';
import { ALL_PERMISSIONS } from './permissions';
import { isDuplicateKey, type Store, type UserDoc } from '../../adapters/store/store';

const emailTaken = () =>
  errors.conflict('A user with this email already exists', { email: fieldError('invalid_value', 'Email already in use in this account') });

/** Emails are compared case-blind: stored and looked up in lowercase. */
export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * The account's first user: every permission, no email; it acts through its API key, and signs
 * in to the console as `owner@<account>` when given a password (npm start's demo account).
 */
export async function createOwner(store: Store, account: string, password?: string): Promise<UserDoc> {
  const now = new Date();
  const id = await nextId(store, account, 'users');
  const owner: UserDoc = {
    _id: `${account}:${id}`, account, id, username: 'owner', passwordExpired: false,
    ...(password ? { passwordHash: await hashPassword(password) } : {}),
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
    if (isDuplicateKey(error)) throw emailTaken();
    throw error;
  }
  return user;
}

export function findUser(store: Store, account: string, id: number): Promise<UserDoc | null> {
  return store.users.findOne({ _id: `${account}:${id}`, account });
}

/** A page of the account's users, searched by email. */
export function findUsers(store: Store, account: string, page: PageRequest): Promise<Page<UserDoc>> {
  return findPage(store.users, { account }, page, 'email');
}

/**
 * Changes a user's email, password or permissions; returns what changed, as stored. A new
 * password clears an expired one. The account's first user has no email to change.
 */
export async function updateUser(store: Store, user: UserDoc, input: Partial<NewUser>): Promise<Partial<UserDoc>> {
  const changes: Partial<UserDoc> = {};
  if (input.email !== undefined) {
    if (!user.email) throw errors.validation({ email: fieldError('invalid_value', 'The account\'s first user has no email') });
    changes.email = normaliseEmail(input.email);
    changes.username = changes.email.slice(0, changes.email.lastIndexOf('@'));
  }
  if (input.password !== undefined) Object.assign(changes, { passwordHash: await hashPassword(input.password), passwordExpired: false });
  if (input.permissions !== undefined) changes.permissions = [...new Set(input.permissions)];
  try {
    await store.users.updateOne({ _id: user._id, account: user.account }, { $set: { ...changes, lastModified: new Date() } });
  } catch (error) {
    if (isDuplicateKey(error)) throw emailTaken();
    throw error;
  }
  return changes;
}

/** Removes a user with every key and session of theirs: they stop working at once. */
export async function deleteUser(store: Store, account: string, id: number): Promise<boolean> {
  const { deletedCount } = await store.users.deleteOne({ _id: `${account}:${id}`, account });
  if (deletedCount === 0) return false;
  await store.keys.deleteMany({ account, kind: 'api', userId: id });
  await store.sessions.deleteMany({ account, userId: id });
  return true;
}
