// The account's lists, interests and fields for the console's selects and checkboxes: one page of
// the API's maximum (1000), which is more than any select is usable with.
import { accountPath } from '../../api';
import { useApi } from '../../hooks';
import type { FieldRecord, InterestRecord, ListRecord } from './types';

const ALL = { limit: 1000, sortby: 'name' };

export function useAllLists() {
  return useApi<ListRecord[]>(accountPath('/lists'), ALL);
}

export function useAllInterests() {
  return useApi<InterestRecord[]>(accountPath('/interests'), ALL);
}

export function useAllFields() {
  return useApi<FieldRecord[]>(accountPath('/fields'), { limit: 1000 });
}
