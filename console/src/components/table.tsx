import type { ComponentChildren } from 'preact';
import { count } from '../format';

export interface Column<T> {
  label: string;
  cell: (row: T) => ComponentChildren;
  /** Right-aligned numbers. */
  numeric?: boolean;
}

/** A table of rows; text is always rendered as text (Preact escapes it), never as HTML. */
export function Table<T>({ caption, columns, rows, rowKey, empty = 'Nothing here yet.' }: {
  caption: string; columns: Array<Column<T>>; rows: T[]; rowKey: (row: T) => string | number; empty?: string;
}) {
  if (rows.length === 0) return <p class="muted">{empty}</p>;
  return (
    <div class="table-wrap">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>{columns.map((c) => <th key={c.label} scope="col" class={c.numeric ? 'num' : undefined}>{c.label}</th>)}</tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>{columns.map((c) => <td key={c.label} class={c.numeric ? 'num' : undefined}>{c.cell(row)}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Offset paging of the account API's listings (`paging: {offset, limit, results, total}`). */
export function OffsetPager({ offset, limit, total, onOffset }: { offset: number; limit: number; total: number; onOffset: (offset: number) => void }) {
  if (total <= limit && offset === 0) return null;
  const last = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>Previous</button>
      <span>{count(total === 0 ? 0 : offset + 1)}–{count(last)} of {count(total)}</span>
      <button type="button" disabled={last >= total} onClick={() => onOffset(offset + limit)}>Next</button>
    </nav>
  );
}

/** Cursor paging (the activity feed's `paging.next` link): forward, and back through the cursors seen. */
export function CursorPager({ hasPrevious, next, onPrevious, onNext }: { hasPrevious: boolean; next?: string | null; onPrevious: () => void; onNext: () => void }) {
  if (!hasPrevious && !next) return null;
  return (
    <nav class="pager" aria-label="Pages">
      <button type="button" disabled={!hasPrevious} onClick={onPrevious}>Newer</button>
      <button type="button" disabled={!next} onClick={onNext}>Older</button>
    </nav>
  );
}
