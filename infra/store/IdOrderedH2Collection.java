// In mongo-java-server's package, beside NativeKeyBackend which opens it.
package de.bwaldvogel.mongo.backend.h2;

import java.util.Collections;
import java.util.Iterator;
import java.util.NoSuchElementException;

import org.h2.mvstore.Cursor;
import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.IdOrder;
import de.bwaldvogel.mongo.backend.InMatch;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;

/**
 * An H2 collection that reads `sort({_id: ±1}).limit(n)` queries in _id order (IdOrder). Its
 * documents' map is keyed by _id already, with H2's ObjectDataType, which orders two ObjectIds by
 * their compareTo (BSON order) and keys of other types by type, then by their Java serialisation.
 * An ObjectId's serialisation starts with its class's, so all ObjectIds are one contiguous run of
 * the map: when the first and the last key are ObjectIds, every key is, and a cursor over the map
 * is the _id order. Otherwise queries take the old path.
 */
final class IdOrderedH2Collection extends H2Collection {
    /** `$in` of many strings by a hash set (InMatch). */
    private final InMatch inMatch = new InMatch();

    private final MVMap<Object, Document> documentsById;

    IdOrderedH2Collection(MongoDatabase database, String name, CollectionOptions options,
                          MVMap<Object, Document> documentsById, MVMap<String, Object> metaMap, CursorRegistry cursors) {
        super(database, name, options, documentsById, metaMap, cursors);
        this.documentsById = documentsById;
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
        IdOrder.Range range = IdOrder.forQuery(query, orderBy, limit);
        if (range == null || !onlyObjectIds() || IdOrder.indexAnswers(getIndexes(), query)) {
            return super.queryDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
        }
        Iterator<Document> documents = range.isEmpty() ? Collections.emptyIterator() : walk(range);
        return matchDocumentsFromStream(query, IdOrder.stream(documents), skip, limit, batchSize, null, fieldSelector);
    }

    private boolean onlyObjectIds() {
        return "_id".equals(getIdField()) && documentsById.firstKey() instanceof ObjectId && documentsById.lastKey() instanceof ObjectId;
    }

    /** The documents from the range's first bound (or end of the map) to its other, both included. */
    private Iterator<Document> walk(IdOrder.Range range) {
        Object from = range.ascending ? range.lowest : range.highest;
        Object to = range.ascending ? range.highest : range.lowest;
        Cursor<Object, Document> cursor = documentsById.cursor(from, to, !range.ascending);
        return new Iterator<>() {
            @Override
            public boolean hasNext() {
                return cursor.hasNext();
            }

            @Override
            public Document next() {
                if (!cursor.hasNext()) throw new NoSuchElementException();
                cursor.next();
                return cursor.getValue();
            }
        };
    }

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        return inMatch.matches(document, query, super::documentMatchesQuery);
    }
}
