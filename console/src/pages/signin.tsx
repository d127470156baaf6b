// Sign in with user (email or username@account) and password; then, when needed, the account
// to use (the email has users in several: ACCOUNT_REQUIRED) and a new password (PASSWORD_EXPIRED).
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError } from '../api';
import { SubmitButton } from '../components/buttons';
import { ErrorText, Form, Notice, SelectField, TextField, useSubmit } from '../components/forms';
import { setSession } from '../session';
import { to } from '../routes';

interface LoginAnswer { token: string; user: string; account: string; acl: Record<string, string[]> }

/** Only a path inside the console is followed after sign-in (no open redirect). */
export function safeNext(next: string | undefined): string {
  return next && next.startsWith('/console') && !next.startsWith('/console/signin') && !next.includes('//') ? next : to('/');
}

export function SignIn() {
  const { query, route } = useLocation();
  const [user, setUser] = useState('');
  const [password, setPassword] = useState('');
  const [accounts, setAccounts] = useState<string[] | null>(null);
  const [account, setAccount] = useState('');
  const [expired, setExpired] = useState(false);
  const [newPassword, setNewPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const submit = useSubmit();
  const form = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    document.title = 'Sign in · Herald';
    form.current?.querySelector('input')?.focus();
  }, []);

  function signIn() {
    if (expired && newPassword !== repeat) {
      submit.setError('The two new passwords differ.');
      return;
    }
    void submit.run(async () => {
      try {
        const body = { user, password, ...(accounts ? { account } : {}), ...(expired ? { newPassword } : {}) };
        const { data } = await api.post<LoginAnswer>('/v2/login', body);
        setSession({ token: data.token, account: data.account, user: data.user, permissions: data.acl[data.account] ?? [] });
        route(safeNext(query.next), true);
      } catch (error) {
        if (error instanceof ApiError && error.type === 'ACCOUNT_REQUIRED' && Array.isArray(error.data)) {
          setAccounts(error.data as string[]);
          setAccount((error.data as string[])[0] ?? '');
          throw new ApiError(409, error.type, 'This email has users in several accounts: choose the account to sign in to.');
        }
        if (error instanceof ApiError && error.type === 'PASSWORD_EXPIRED') {
          setExpired(true);
          throw new ApiError(401, error.type, 'Your password has expired: choose a new one.');
        }
        throw error;
      }
    });
  }

  return (
    <main class="signin" id="main">
      <h1 id="page-title" tabIndex={-1}>Sign in to Herald</h1>
      {query.expired && <Notice>Your session ended after an hour without use. Sign in again to go on where you were.</Notice>}
      {query.signedout && <Notice>You are signed out.</Notice>}
      <div ref={form}>
      <Form onSubmit={signIn} label="Sign in">
        <TextField label="Email or username@account" value={user} onInput={setUser} autocomplete="username" required />
        <TextField label="Password" type="password" value={password} onInput={setPassword} autocomplete="current-password" required />
        {accounts && (
          <SelectField label="Account" value={account} onChange={setAccount} options={accounts.map((a) => ({ value: a, label: a }))} />
        )}
        {expired && (
          <>
            <TextField label="New password" type="password" value={newPassword} onInput={setNewPassword} autocomplete="new-password"
              error={submit.fields.newPassword} required />
            <TextField label="Repeat the new password" type="password" value={repeat} onInput={setRepeat} autocomplete="new-password" required />
          </>
        )}
        <ErrorText error={submit.error} />
        <SubmitButton busy={submit.busy}>Sign in</SubmitButton>
      </Form>
      </div>
    </main>
  );
}
