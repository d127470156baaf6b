// In mongo-java-server's package: the memory backend's index opening is protected.
package de.bwaldvogel.mongo.backend.memory;

import java.util.List;

import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.Index;
import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.IndexLookups;
import de.bwaldvogel.mongo.backend.memory.index.MemoryUniqueIndex;
import de.bwaldvogel.mongo.bson.Document;

/**
 * The memory backend (`--memory`: tests and benchmarks) with the same index use as the file's
 * (IndexLookups) and the same keyset pages in _id order (IdOrder), so that a query costs there
 * what it costs in production.
 */
public final class LookupMemoryBackend extends MemoryBackend {
    @Override
    public MemoryDatabase openOrCreateDatabase(String name) {
        return new MemoryDatabase(name, getCursorRegistry()) {
            @Override
            protected MemoryCollection openOrCreateCollection(String collection, CollectionOptions options) {
                return new IdOrderedMemoryCollection(this, collection, options, cursorRegistry);
            }

            @Override
            protected Index<Integer> openOrCreateUniqueIndex(String collection, String indexName, List<IndexKey> keys, boolean sparse) {
                return new LookupIndex(indexName, keys, sparse);
            }
        };
    }

    /** A memory unique index that also answers every query fixing its fields by equalities and `$in`. */
    static final class LookupIndex extends MemoryUniqueIndex {
        LookupIndex(String name, List<IndexKey> keys, boolean sparse) {
            super(name, keys, sparse);
        }

        @Override
        public synchronized boolean canHandle(Document query) {
            return super.canHandle(query) || IndexLookups.forQuery(keys(), query) != null;
        }

        @Override
        public synchronized Iterable<Integer> getPositions(Document query) {
            return super.canHandle(query) ? super.getPositions(query) : IndexLookups.positions(keys(), query, this::getPosition);
        }
    }
}
