import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { ErrorText } from './forms';

/** A page's frame: its heading (and the document title), actions on the right, then the body. */
export function Page({ title, actions, children }: { title: string; actions?: ComponentChildren; children: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Herald`;
  }, [title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <header class="page-header">
        <h1 id="page-title" tabIndex={-1}>{title}</h1>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** What a loaded block shows: its error, "Loading…", or its content. */
export function Loading({ loading, error, children }: { loading: boolean; error?: string; children?: ComponentChildren }) {
  if (error) return <ErrorText error={error} />;
  if (loading && !children) return <p class="muted" role="status">Loading…</p>;
  return <>{children}</>;
}

export function Section({ title, children, actions }: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card">
      <header class="card-header">
        <h2>{title}</h2>
        {actions && <div class="page-actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

/** Label–value pairs (a contact's state, an event's fields). */
export function Details({ items }: { items: Array<[string, ComponentChildren]> }) {
  return (
    <dl class="details">
      {items.map(([label, value]) => (
        <div key={label}><dt>{label}</dt><dd>{value ?? '—'}</dd></div>
      ))}
    </dl>
  );
}

/** A secret shown once (a new key, a webhook's secret), with the warning that it will not be shown again. */
export function SecretOnce({ label, value }: { label: string; value: string }) {
  return (
    <div class="secret" role="status">
      <p><strong>{label}</strong> — copy it now: it is not shown again.</p>
      <code class="secret-value" tabIndex={0}>{value}</code>
    </div>
  );
}

/** A block of code or raw text (an event's JSON, a message's text part): scrollable, so reachable with the keyboard. */
export function CodeBlock({ label, text, class: className }: { label: string; text: string; class?: string }) {
  return <pre tabIndex={0} aria-label={label} class={className}>{text}</pre>;
}
