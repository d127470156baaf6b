// What transactional sending needs: the keys of POST /v1/mail/send and SMTP, and the DKIM keys of the sender domains.
import { Page } from '../../components/page';
import { TransactionalKeys } from './transactional-keys';
import { DkimKeys } from './dkim-keys';

export function Sending() {
  return (
    <Page title="Keys and DKIM">
      <TransactionalKeys />
      <DkimKeys />
    </Page>
  );
}
