// /contacts: the account's contacts, searched and filtered through the API's own listing (one
// page of 50 at a time: the first page of 100k contacts is one indexed query), the search kept in
// the address; export of what the filters select.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import { to } from '../../routes';
import { can } from '../../session';
import { count, percent } from '../../format';
import { Page, Loading } from '../../components/page';
import { SelectField, TextField } from '../../components/forms';
import { OffsetPager, Table } from '../../components/table';
import { useAllInterests, useAllLists } from './choices';
import { ExportButton } from './export';
import { apiQuery, PAGE_SIZE, readSearch, searchQuery, type ContactSearch } from './search';
import { StateBadge } from './state';
import type { ContactRow } from './types';
import './audience.css';

const STATES = [
  { value: '', label: 'Any state' }, { value: 'active', label: 'Active' }, { value: 'unsubscribed', label: 'Unsubscribed' },
  { value: 'bounced', label: 'Bounced' }, { value: 'complained', label: 'Complained' }, { value: 'inactive', label: 'Inactive' },
];

export function Contacts() {
  const { query, route } = useLocation();
  const search = readSearch(query);
  const go = (next: ContactSearch) => route(to(`/contacts${searchQuery(next)}`));
  const set = (change: Partial<ContactSearch>) => go({ ...search, offset: 0, ...change });
  const [q, setQ] = useState(search.q);
  const [domain, setDomain] = useState(search.domain);
  useEffect(() => { setQ(search.q); setDomain(search.domain); }, [search.q, search.domain]);
  const page = useApi<ContactRow[]>(accountPath('/contacts'), apiQuery(search));
  // The filters' choices after the first rows: the rows come first, with the store to themselves.
  const rowsShown = page.data !== undefined || page.error !== undefined;
  const lists = useAllLists(!rowsShown);
  const interests = useAllInterests(!rowsShown);
  const paging = page.envelope?.paging;
  const exportBody = {
    ...(search.list ? { listId: search.list } : {}),
    ...(search.interest ? { interestId: search.interest } : {}),
    ...(search.state && search.state !== 'inactive' ? { state: search.state } : {}),
  };

  return (
    <Page title="Contacts" actions={(
      <>
        <a class="button" href={to('/contacts/import')}>Import CSV</a>
        {can('contacts:create')
          ? <a class="button primary" href={to('/contacts/new')}>New contact</a>
          : <button type="button" disabled title="Creating contacts needs the permission contacts:create">New contact</button>}
      </>
    )}>
      <form class="filters" role="search" aria-label="Search contacts" onSubmit={(e) => { e.preventDefault(); set({ q, domain }); }}>
        <TextField label="Email contains" type="search" value={q} onInput={setQ} placeholder="part of it; * matches anything" />
        <TextField label="Domain" value={domain} onInput={setDomain} placeholder="example.com" />
        <SelectField label="State" value={search.state} onChange={(state) => set({ state })} options={STATES} />
        <SelectField label="List" value={search.list} onChange={(list) => set({ list })}
          options={[{ value: '', label: 'Any list' }, ...(lists.data ?? []).map((l) => ({ value: String(l.id), label: l.name }))]} />
        <SelectField label="Interest" value={search.interest} onChange={(interest) => set({ interest })}
          options={[{ value: '', label: 'Any interest' }, ...(interests.data ?? []).map((i) => ({ value: String(i.id), label: i.name }))]} />
        <SelectField label="Sort by" value={`${search.sortby} ${search.sortdir}`}
          onChange={(value) => { const [sortby, sortdir] = value.split(' '); set({ sortby, sortdir }); }}
          options={[
            { value: 'email asc', label: 'Email, A to Z' }, { value: 'email desc', label: 'Email, Z to A' },
            { value: 'quality desc', label: 'Quality, best first' }, { value: 'quality asc', label: 'Quality, worst first' },
          ]} />
        <div class="filter-buttons">
          <button type="submit" class="primary">Search</button>
          <button type="button" onClick={() => go(readSearch({}))}>Clear</button>
        </div>
      </form>
      <Loading loading={page.loading} error={page.error}>
        {page.data && (
          <>
            <p class="muted" aria-live="polite">{count(paging?.total ?? page.data.length)} {(paging?.total ?? page.data.length) === 1 ? 'contact' : 'contacts'}{page.loading ? ' · updating…' : ''}</p>
            <Table caption="Contacts" rows={page.data} rowKey={(c) => c.id} empty="No contact matches."
              columns={[
                { label: 'Email', cell: (c) => <a href={to(`/contacts/${c.id}`)}>{c.email}</a> },
                { label: 'Name', cell: (c) => [c.firstName, c.lastName].filter(Boolean).join(' ') || '—' },
                { label: 'State', cell: (c) => <StateBadge state={c.state} /> },
                { label: 'Quality', numeric: true, cell: (c) => percent(c.quality) },
              ]} />
            {paging && <OffsetPager offset={search.offset} limit={paging.limit ?? PAGE_SIZE} total={paging.total} onOffset={(offset) => go({ ...search, offset })} />}
          </>
        )}
      </Loading>
      <section class="card" aria-labelledby="export-title">
        <h2 id="export-title">Export</h2>
        <p class="muted">A CSV file of the contacts the list, interest and state filters select (every contact when none is set).</p>
        <ExportButton body={exportBody} />
      </section>
    </Page>
  );
}
