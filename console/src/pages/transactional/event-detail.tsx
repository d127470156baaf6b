// One event, every field: label–value pairs, then the whole event as JSON text (never as HTML).
import { useEffect, useRef } from 'preact/hooks';
import { CodeBlock, Details } from '../../components/page';
import { dateTime } from '../../format';
import type { ActivityEvent } from './types';

function valueText(name: string, value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'string') return name.endsWith('timestamp') ? `${dateTime(value)} (${value})` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

export function EventDetail({ event, onClose }: { event: ActivityEvent; onClose: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  // Opening moves the focus here, so keyboard users land on what they asked for.
  useEffect(() => heading.current?.focus(), [event.track_id]);
  return (
    <section class="card event-detail" aria-labelledby="event-title">
      <header class="card-header">
        <h2 id="event-title" ref={heading} tabIndex={-1}>Event {event.track_id}</h2>
        <button type="button" onClick={onClose}>Close</button>
      </header>
      <Details items={Object.entries(event).map(([name, value]) => [name, valueText(name, value)])} />
      <h3>As JSON</h3>
      <CodeBlock label="The event as JSON" text={JSON.stringify(event, null, 2)} />
    </section>
  );
}
