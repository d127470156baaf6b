// Every workflow the worker registers.
export { TransactionalBatch } from './transactional-batch';
export { ContactExport } from './contact-export';
export { ContactImport } from './contact-import';
