// What POST /contacts/import/preview answered: each column and the field it fills (changeable:
// the import's `columnFields`), and the first rows as the import would take them.
import { SelectField } from '../../components/forms';
import { Table } from '../../components/table';
import type { FieldRecord } from './types';

export interface ImportColumn { index: number; header: string | null; field: number; fieldName: string | null; interests: boolean }
export interface PreviewRow {
  row: number; action: 'create' | 'update' | 'ignore' | 'error'; email: string | null; firstName?: string; lastName?: string; problems: string[];
}
export interface Preview { options: Record<string, unknown>; columns: ImportColumn[]; contacts: PreviewRow[] }

export function ColumnMapping({ columns, fields, mapping, onChange }: {
  columns: ImportColumn[]; fields: FieldRecord[]; mapping: number[]; onChange: (mapping: number[]) => void;
}) {
  const options = [{ value: '0', label: 'Skip this column' }, ...fields.map((f) => ({ value: String(f.id), label: f.custom ? `${f.name} (custom)` : f.name }))];
  return (
    <div class="mapping">
      {columns.map((c) => (
        <SelectField key={c.index} label={`Column ${c.index + 1}${c.header ? `: ${c.header}` : ''}${c.interests ? ' (interests)' : ''}`}
          value={String(mapping[c.index] ?? 0)} options={options} disabled={c.interests}
          onChange={(value) => onChange(columns.map((col) => (col.index === c.index ? Number(value) : mapping[col.index] ?? 0)))} />
      ))}
    </div>
  );
}

export function PreviewRows({ rows }: { rows: PreviewRow[] }) {
  return (
    <Table caption="The first rows as the import would take them" rows={rows} rowKey={(r) => r.row} empty="The file has no rows."
      columns={[
        { label: 'Row', numeric: true, cell: (r) => r.row },
        { label: 'Email', cell: (r) => r.email ?? '—' },
        { label: 'Name', cell: (r) => [r.firstName, r.lastName].filter(Boolean).join(' ') || '—' },
        { label: 'Action', cell: (r) => <span class={`badge action-${r.action}`}>{r.action}</span> },
        { label: 'Problems', cell: (r) => r.problems.join('; ') || '—' },
      ]} />
  );
}
