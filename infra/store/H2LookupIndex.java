// In mongo-java-server's package: H2UniqueIndex's constructor is package-private.
package de.bwaldvogel.mongo.backend.h2;

import java.util.List;

import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.IndexLookups;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.bson.Document;

/**
 * The H2 unique index, also answering every query that fixes its fields by equalities and `$in`
 * (IndexLookups): `{account: "a", email: {$in: [...]}}`, `{_id: "x", account: "a"}`.
 */
final class H2LookupIndex extends H2UniqueIndex {
    H2LookupIndex(MVMap<KeyValue, Object> map, String name, List<IndexKey> keys, boolean sparse) {
        super(map, name, keys, sparse);
    }

    @Override
    public synchronized boolean canHandle(Document query) {
        return super.canHandle(query) || IndexLookups.forQuery(keys(), query) != null;
    }

    @Override
    public synchronized Iterable<Object> getPositions(Document query) {
        return super.canHandle(query) ? super.getPositions(query) : IndexLookups.positions(keys(), query, this::getPosition);
    }
}
