// A finished migration's report (core/migration/report.ts): per kind, what was read at the source
// and what became of it here, the skipped ones by reason; and the id mapping as a CSV download.
import { ActionButton } from '../../components/buttons';
import { Table } from '../../components/table';
import { downloadFile } from '../../download';
import type { KindReport, MigrationReport } from './migration-types';

const KIND_LABELS: Record<string, string> = {
  fields: 'Custom fields', interests: 'Interests', lists: 'Lists', contacts: 'Contacts', suppressions: 'Suppressions',
  templates: 'Templates', campaigns: 'Campaigns (as drafts)', webhooks: 'Webhooks (disabled)',
};

function skippedCount(kind: KindReport): number {
  return Object.values(kind.skipped).reduce((sum, n) => sum + n, 0);
}

export function MigrationReportView({ report }: { report: MigrationReport }) {
  const rows = Object.entries(report.kinds).map(([name, kind]) => ({ name, ...kind }));
  const skipped = rows.flatMap((row) => Object.entries(row.skipped).map(([reason, n]) => ({ key: `${row.name}|${reason}`, kind: row.name, reason, n })));
  return (
    <div class="migration-report">
      <Table caption="What was migrated, per kind" rows={rows} rowKey={(row) => row.name}
        columns={[
          { label: 'Kind', cell: (row) => KIND_LABELS[row.name] ?? row.name },
          { label: 'Read', numeric: true, cell: (row) => row.read.toLocaleString('en-US') },
          { label: 'Created', numeric: true, cell: (row) => row.created.toLocaleString('en-US') },
          { label: 'Updated', numeric: true, cell: (row) => row.updated.toLocaleString('en-US') },
          { label: 'Unchanged', numeric: true, cell: (row) => row.unchanged.toLocaleString('en-US') },
          { label: 'Skipped', numeric: true, cell: (row) => skippedCount(row).toLocaleString('en-US') },
          { label: 'Seconds', numeric: true, cell: (row) => (row.seconds === undefined ? '—' : row.seconds.toFixed(1)) },
        ]} />
      {skipped.length > 0 && (
        <>
          <h3>Skipped, and why</h3>
          <Table caption="Skipped elements by reason" rows={skipped} rowKey={(row) => row.key}
            columns={[
              { label: 'Kind', cell: (row) => KIND_LABELS[row.kind] ?? row.kind },
              { label: 'Reason', cell: (row) => row.reason },
              { label: 'Count', numeric: true, cell: (row) => row.n.toLocaleString('en-US') },
            ]} />
        </>
      )}
      <p class="muted">Each element's id at the source and here: the mapping a re-run uses to bring over what changed.</p>
      <ActionButton onAction={() => downloadFile(report.mapping, 'migration-mapping.csv')}>Download the id mapping (CSV)</ActionButton>
    </div>
  );
}
