import { useEffect, useRef, useState } from 'preact/hooks';
import { LocationProvider, Router, Route, useLocation } from 'preact-iso';
import { accountPath, api, handleExpiredSession } from './api';
import { onSessionChange, session, sessionEnded, setSession } from './session';
import { Nav } from './nav';
import { type ConsoleRoute, to } from './routes';
import { SignIn } from './pages/signin';
import { NotFound } from './pages/not-found';
import { overviewRoutes } from './pages/overview';
import { transactionalRoutes } from './pages/transactional';
import { audienceRoutes } from './pages/audience';
import { campaignRoutes } from './pages/campaigns';
import { automationRoutes } from './pages/automations';
import { settingsRoutes } from './pages/settings';

const ROUTES: ConsoleRoute[] = [
  ...overviewRoutes, ...transactionalRoutes, ...audienceRoutes, ...campaignRoutes, ...automationRoutes, ...settingsRoutes,
];

function useSession() {
  const [current, setCurrent] = useState(session());
  useEffect(() => onSessionChange(() => setCurrent(session())), []);
  return current;
}

/** Signed in: the frame and the page; signed out: the sign-in page, keeping where the person was going. */
function Shell() {
  const current = useSession();
  const location = useLocation();
  const onSignIn = location.path === to('/signin');
  useEffect(() => {
    handleExpiredSession((next) => location.route(`${to('/signin')}?expired=1&next=${encodeURIComponent(next)}`, true));
  }, [location]);
  useEffect(() => {
    // However the session ended (a refused call, another tab's sign-out), where the person was is kept.
    const expired = sessionEnded() === 'expired' ? 'expired=1&' : '';
    if (!current && !onSignIn) location.route(`${to('/signin')}?${expired}next=${encodeURIComponent(location.url)}`, true);
  }, [current, onSignIn]); // location: read when either changes
  // A page change moves focus to its heading, so keyboard and screen-reader users start there
  // (not on the first load: the browser starts at the top anyway, and sign-in focuses its field).
  const firstPath = useRef(location.path);
  useEffect(() => {
    if (location.path !== firstPath.current && !onSignIn) document.getElementById('page-title')?.focus();
    firstPath.current = '';
  }, [location.path]);
  // Once per load, the session is checked: one that ended sends the person to sign in at once.
  const token = current?.token;
  useEffect(() => {
    if (token) api.get(accountPath('')).catch(() => undefined); // a 401 is handled by the client
  }, [token]);
  if (!current || onSignIn) return <SignIn />;
  return (
    <div class="layout">
      <a class="skip" href="#main">Skip to content</a>
      <header class="topbar">
        <a class="brand" href={to('/')}>Herald</a>
        <span class="who">{current.user} · account <strong>{current.account}</strong></span>
        <button type="button" class="link" onClick={() => signOut(location.route)}>Sign out</button>
      </header>
      <Nav />
      <main id="main" tabIndex={-1}>
        <Router>
          {ROUTES.map((r) => <Route key={r.path} path={to(r.path)} component={r.component} />)}
          <Route default component={NotFound} />
        </Router>
      </main>
    </div>
  );
}

async function signOut(route: (url: string) => void) {
  try {
    await api.post('/v2/logout');
  } catch {
    // already ended on the server (expired): signing out here is all that is left
  }
  setSession(null, 'signed-out');
  route(`${to('/signin')}?signedout=1`);
}

export function App() {
  return (
    <LocationProvider scope="/console">
      <Shell />
    </LocationProvider>
  );
}
