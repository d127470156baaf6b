import { useId } from 'preact/hooks';
import type { Named } from './types';

/**
 * A labelled native multiple select (keyboard: arrows, Space or Ctrl/Shift to add; a screen
 * reader announces it as a list box). Ids chosen that the choices no longer hold stay chosen.
 */
export function MultiSelect({ label, choices, value, onChange, hint }: {
  label: string; choices: Named[]; value: number[]; onChange: (ids: number[]) => void; hint?: string;
}) {
  const id = useId();
  const known = new Set(choices.map((c) => c.id));
  const missing = value.filter((v) => !known.has(v)).map((v) => ({ id: v, name: `#${v}` }));
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} multiple size={Math.min(6, Math.max(3, choices.length + missing.length))} aria-describedby={hint ? `${id}-hint` : undefined}
        onChange={(e) => onChange([...e.currentTarget.selectedOptions].map((o) => Number(o.value)))}>
        {[...choices, ...missing].map((c) => <option key={c.id} value={c.id} selected={value.includes(c.id)}>{c.name}</option>)}
      </select>
      {hint && <p class="hint" id={`${id}-hint`}>{hint}</p>}
    </div>
  );
}
