// The suite's store (started by the global setup, MONGODB_URI), as the test files reach it.
import { MongoClient } from 'mongodb';

/** The suite's store (global setup), without its database: each stack gets its own. */
export function suiteMongodbUri(): string {
  return process.env.MONGODB_URI!.replace(/^(mongodb(?:\+srv)?:\/\/[^/?]+)\/[^?]*/, '$1/');
}

/** Drops a test's database once everything that wrote to it has stopped. */
export async function dropDatabase(database: string): Promise<void> {
  const client = await MongoClient.connect(suiteMongodbUri());
  try {
    await client.db(database).dropDatabase();
  } finally {
    await client.close();
  }
}
