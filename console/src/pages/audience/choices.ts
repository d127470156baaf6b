// The account's lists, interests and fields for the console's selects and checkboxes: one page of
// the API's maximum (1000), which is more than any select is usable with.
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import type { FieldRecord, InterestRecord, ListRecord } from './types';

const ALL = { limit: 1000, sortby: 'name' };

/** `wait`: not yet (the contacts page asks once its rows are in: a list page counts its members, which reads every contact). */
export function useAllLists(wait = false) {
  return useApi<ListRecord[]>(wait ? null : accountPath('/lists'), ALL);
}

export function useAllInterests(wait = false) {
  return useApi<InterestRecord[]>(wait ? null : accountPath('/interests'), ALL);
}

export function useAllFields() {
  return useApi<FieldRecord[]>(accountPath('/fields'), { limit: 1000 });
}
