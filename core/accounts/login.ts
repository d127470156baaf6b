import { errors, fieldError } from '../shared/errors';
import { findKey } from './keys';
import { hashPassword, MIN_PASSWORD_LENGTH, verifyPassword } from './passwords';
import { createSession } from './sessions';
import type { Store, UserDoc } from '../../adapters/store/store';
import { findUser, normaliseEmail } from './users';

export interface LoginInput { user?: string; password?: string; account?: string; newPassword?: string; apikey?: string }

export interface Login { token: string; user: UserDoc }

/**
 * The original's login: `user` is an email or `username@account`, with its password (and the
 * account when the email has users in several); or only an `apikey`. Answers a session token.
 * Which accounts an email has is only told once the password matched in more than one.
 */
export async function login(store: Store, input: LoginInput): Promise<Login> {
  if (input.apikey !== undefined && input.user === undefined) return loginWithKey(store, input.apikey);
  if (!input.user || !input.password) {
    throw errors.validation({
      ...(!input.user ? { user: fieldError('required', 'Give your email (or user@account)') } : {}),
      ...(!input.password ? { password: fieldError('required') } : {}),
    });
  }
  const candidates = (await usersNamed(store, input.user)).filter((u) => !input.account || u.account === input.account);
  const matching: UserDoc[] = [];
  for (const user of candidates) if (await verifyPassword(input.password, user.passwordHash)) matching.push(user);
  if (candidates.length === 0) await verifyPassword(input.password, undefined); // the same time as a wrong password
  if (matching.length === 0) throw errors.unauthorized('Wrong user or password');
  if (matching.length > 1) throw errors.accountRequired(matching.map((u) => u.account).sort());
  const user = matching[0];
  if (input.newPassword !== undefined) await changePassword(store, user, input.password, input.newPassword);
  else if (user.passwordExpired) throw errors.passwordExpired();
  return { token: await createSession(store, user.account, user.id), user };
}

async function loginWithKey(store: Store, apikey: string): Promise<Login> {
  const key = await findKey(store, apikey, 'api');
  const user = key?.userId !== undefined ? await findUser(store, key.account, key.userId) : null;
  if (!user) throw errors.unauthorized('Invalid API key');
  return { token: await createSession(store, user.account, user.id), user };
}

/** Users an email names, or the one `username@account` names when no email matches. */
async function usersNamed(store: Store, name: string): Promise<UserDoc[]> {
  const byEmail = await store.users.find({ email: normaliseEmail(name) }).limit(100).toArray();
  if (byEmail.length > 0) return byEmail;
  const at = name.lastIndexOf('@');
  if (at <= 0) return [];
  return store.users.find({ account: name.slice(at + 1).trim().toLowerCase(), username: name.slice(0, at).trim().toLowerCase() }).limit(10).toArray();
}

async function changePassword(store: Store, user: UserDoc, current: string, next: string): Promise<void> {
  if (next.length < MIN_PASSWORD_LENGTH || next.length > 200) {
    throw errors.validation({ newPassword: fieldError('invalid_value', `From ${MIN_PASSWORD_LENGTH} to 200 characters`) });
  }
  if (next === current) throw errors.validation({ newPassword: fieldError('invalid_value', 'Must differ from the current password') });
  const passwordHash = await hashPassword(next);
  await store.users.updateOne({ _id: user._id, account: user.account }, { $set: { passwordHash, passwordExpired: false, lastModified: new Date() } });
  user.passwordExpired = false;
}
