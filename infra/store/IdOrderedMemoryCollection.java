// In mongo-java-server's package: MemoryCollection's document positions are protected.
package de.bwaldvogel.mongo.backend.memory;

import java.util.TreeMap;

import de.bwaldvogel.mongo.MongoDatabase;
import de.bwaldvogel.mongo.backend.CollectionOptions;
import de.bwaldvogel.mongo.backend.CursorRegistry;
import de.bwaldvogel.mongo.backend.IdOrder;
import de.bwaldvogel.mongo.backend.InMatch;
import de.bwaldvogel.mongo.backend.QueryResult;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;

/**
 * A memory collection that reads `sort({_id: ±1}).limit(n)` queries in _id order (IdOrder): it
 * keeps its ObjectId _ids in order beside the positions, and counts the _ids of other types, any
 * of which sends queries back to the old path. _id is immutable, so updates change neither.
 */
final class IdOrderedMemoryCollection extends MemoryCollection {
    /** `$in` of many strings by a hash set (InMatch). */
    private final InMatch inMatch = new InMatch();

    private final TreeMap<ObjectId, Integer> positionsById = new TreeMap<>();
    private int otherIds;

    IdOrderedMemoryCollection(MongoDatabase database, String name, CollectionOptions options, CursorRegistry cursors) {
        super(database, name, options, cursors);
    }

    @Override
    protected Integer addDocumentInternal(Document document) {
        Integer position = super.addDocumentInternal(document);
        Object id = idOf(document);
        if (id instanceof ObjectId) positionsById.put((ObjectId) id, position);
        else otherIds++;
        return position;
    }

    @Override
    protected void removeDocument(Integer position) {
        Object id = idOf(getDocument(position));
        super.removeDocument(position);
        if (id instanceof ObjectId && positionsById.remove(id) != null) return;
        otherIds--;
    }

    @Override
    protected QueryResult queryDocuments(Document query, Document orderBy, int skip, int limit, int batchSize, Document fieldSelector) {
        IdOrder.Range range = otherIds == 0 ? IdOrder.forQuery(query, orderBy, limit) : null;
        if (range == null || IdOrder.indexAnswers(getIndexes(), query)) {
            return super.queryDocuments(query, orderBy, skip, limit, batchSize, fieldSelector);
        }
        return matchDocumentsFromStream(query, range.of(positionsById).stream().map(this::getDocument),
            skip, limit, batchSize, null, fieldSelector);
    }

    private Object idOf(Document document) {
        return getIdField() == null ? null : document.get(getIdField());
    }

    @Override
    protected boolean documentMatchesQuery(Document document, Document query) {
        return inMatch.matches(document, query, super::documentMatchesQuery);
    }
}
