// The track types a webhook endpoint can choose (the API refuses any other), as a labelled checkbox group.
import { TRACK_TYPES } from '../../../../core/tracking/track-types';
import { Checkbox } from '../../components/forms';

export { TRACK_TYPES };

/** "all" when every type is sent (the API's default), else the count. */
export function eventsSummary(events: string[]): string {
  return events.length >= TRACK_TYPES.length ? 'All events' : `${events.length} of ${TRACK_TYPES.length} types`;
}

export function EventTypes({ value, onChange, error, disabled }: {
  value: string[]; onChange: (value: string[]) => void; error?: string; disabled?: boolean;
}) {
  const toggle = (type: string, on: boolean) => onChange(TRACK_TYPES.filter((t) => (t === type ? on : value.includes(t))));
  return (
    <fieldset class="event-types" disabled={disabled}>
      <legend>Event types</legend>
      <div class="checks">
        {TRACK_TYPES.map((type) => <Checkbox key={type} label={type} checked={value.includes(type)} onChange={(on) => toggle(type, on)} />)}
      </div>
      {error && <p class="field-error" role="alert">{error}</p>}
    </fieldset>
  );
}
