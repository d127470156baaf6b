// What a client is told when the store fails a request (core/shared/faults.ts), for the store's
// real errors: a statement of a bulk write refused by the store (the write batchers hand each
// caller its own statement's error, which the driver does not make a MongoError) is an outage to
// retry, never a 500; a value the driver cannot encode is the client's bad request.
import { MongoClient } from 'mongodb';
import { refusedStatements } from '../../adapters/store/bulk-writes';
import { isDuplicateKey } from '../../adapters/store/store';
import { toAppError } from '../../core/shared/faults';
import { ErrorCode } from '../../core/shared/errors';
import { newId } from '../../core/shared/ids';

let client: MongoClient;
const database = `herald_faults_${newId().slice(0, 8)}`;
beforeAll(async () => { client = await new MongoClient(process.env.MONGODB_URI!).connect(); });
afterAll(async () => {
  await client.db(database).dropDatabase();
  await client.close();
});

/** The error the store gives the second statement of an unordered insertMany of `docs`. */
async function secondStatementError(docs: Array<{ _id: unknown }>): Promise<unknown> {
  const error = await client.db(database).collection<{ _id: unknown }>('things').insertMany(docs, { ordered: false }).then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeDefined();
  return refusedStatements(error).get(1);
}

it('answers a statement the store refused as unavailable, and a duplicate stays a duplicate', async () => {
  const refused = await secondStatementError([{ _id: newId() }, { _id: [1, 2] }]); // the store refuses an array _id
  expect(refused).toMatchObject({ code: 53 });
  expect(toAppError(refused).code).toBe(ErrorCode.Unavailable);

  const id = newId();
  const duplicate = await secondStatementError([{ _id: id }, { _id: id }]);
  expect(isDuplicateKey(duplicate)).toBe(true);
});

it('answers a value the driver cannot encode as a bad request, and anything else as internal', async () => {
  const unencodable = await client.db(database).collection('things').insertOne({ 'a\u0000b': 1 }).then(() => undefined, (caught: unknown) => caught); // a key with a NUL
  expect(unencodable).toBeDefined();
  expect(toAppError(unencodable).code).toBe(ErrorCode.BadRequest);
  expect(toAppError(new TypeError('a bug')).code).toBe(ErrorCode.Internal);
});
