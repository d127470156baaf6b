import { useLocation } from 'preact-iso';
import { to } from './routes';

/** The sidebar's sections and their pages; the current one is marked for screen readers too. */
const SECTIONS: Array<{ title: string; links: Array<[string, string]> }> = [
  { title: 'Home', links: [['/', 'Overview']] },
  { title: 'Transactional', links: [['/activity', 'Activity'], ['/batches', 'Batches'], ['/suppressions', 'Suppressions'], ['/sending', 'Keys and DKIM']] },
  { title: 'Audience', links: [['/contacts', 'Contacts'], ['/lists', 'Lists'], ['/interests', 'Interests'], ['/fields', 'Custom fields']] },
  { title: 'Marketing', links: [['/campaigns', 'Campaigns'], ['/automations', 'Automations']] },
  { title: 'Settings', links: [['/webhooks', 'Webhooks'], ['/users', 'Users and API keys'], ['/relays', 'Relays and feedback'], ['/migrations', 'Migrations']] },
];

export function Nav() {
  const { path } = useLocation();
  const current = (href: string) => (href === '/' ? path === to('/') || path === '/console/' : path === to(href) || path.startsWith(`${to(href)}/`));
  return (
    <nav class="sidebar" aria-label="Console">
      {SECTIONS.map((section) => (
        <div key={section.title} class="nav-section">
          <h2>{section.title}</h2>
          <ul>
            {section.links.map(([href, label]) => (
              <li key={href}><a href={to(href)} aria-current={current(href) ? 'page' : undefined}>{label}</a></li>
            ))}
          </ul>
        </div>
      ))}
    </nav>
  );
}
