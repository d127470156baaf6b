// In mongo-java-server's package, beside IndexLookups.
package de.bwaldvogel.mongo.backend;

import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import java.util.Spliterator;
import java.util.Spliterators;

import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.bson.ObjectId;

/**
 * Keyset pages, `find({..., _id: {$gt: a, $lt: b}}).sort({_id: 1}).limit(n)`, read in _id order.
 * mongo-java-server answers a sorted query by matching every document of the collection, sorting
 * all the matches and only then applying the limit, so each page of a keyset walk cost the whole
 * remaining collection. When the sort is exactly `{_id: 1}` or `{_id: -1}` with a limit and every
 * _id of the collection is an ObjectId (a total order, the one ValueComparator sorts them in), the
 * collections walk their documents in _id order from the query's ObjectId bounds instead and stop
 * after skip + limit matches. The walk only has to visit a superset of the answer in the right
 * order: every document visited is still matched against the whole query (so `$gt` versus `$gte`,
 * and every other condition, is the matcher's business), and anything else takes the old path.
 */
public final class IdOrder {
    /** The part of the _id order a query can match: null bounds are open; `ascending` is the sort's direction. */
    public static final class Range {
        public final boolean ascending;
        public final ObjectId lowest;
        public final ObjectId highest;

        Range(boolean ascending, ObjectId lowest, ObjectId highest) {
            this.ascending = ascending;
            this.lowest = lowest;
            this.highest = highest;
        }

        /** True when no ObjectId can lie within the bounds (`$gt: b, $lt: a` with a < b). */
        public boolean isEmpty() {
            return lowest != null && highest != null && lowest.compareTo(highest) > 0;
        }

        /** The slice of an _id → position map this range walks, in the sort's order. */
        public <V> Collection<V> of(NavigableMap<ObjectId, V> byId) {
            if (isEmpty()) return List.of();
            NavigableMap<ObjectId, V> slice = byId;
            if (lowest != null) slice = slice.tailMap(lowest, true);
            if (highest != null) slice = slice.headMap(highest, true);
            return (ascending ? slice : slice.descendingMap()).values();
        }
    }

    private IdOrder() {}

    /** The range to walk for this query, or null when the query must take the old path (scan, sort, limit). */
    public static Range forQuery(Document query, Document orderBy, int limit) {
        if (limit <= 0 || orderBy == null || orderBy.size() != 1 || !(orderBy.get("_id") instanceof Number)) return null;
        Number direction = (Number) orderBy.get("_id");
        if (direction.doubleValue() != 1 && direction.doubleValue() != -1) return null;
        ObjectId lowest = null;
        ObjectId highest = null;
        Object condition = query.get("_id");
        if (condition instanceof Document && !BsonRegularExpression.isRegularExpression(condition)) {
            // Bounds only narrow the walk; conditions of other kinds are left to the matcher.
            for (Map.Entry<String, Object> operator : ((Document) condition).entrySet()) {
                if (!(operator.getValue() instanceof ObjectId)) continue;
                ObjectId bound = (ObjectId) operator.getValue();
                switch (operator.getKey()) {
                    case "$gt": case "$gte":
                        if (lowest == null || bound.compareTo(lowest) > 0) lowest = bound;
                        break;
                    case "$lt": case "$lte":
                        if (highest == null || bound.compareTo(highest) < 0) highest = bound;
                        break;
                    default:
                        break;
                }
            }
        }
        return new Range(direction.doubleValue() > 0, lowest, highest);
    }

    /** True when one of the collection's indexes answers the query (an equality or `$in` lookup): a few documents, cheaper than a walk. */
    public static <P> boolean indexAnswers(List<Index<P>> indexes, Document query) {
        for (Index<P> index : indexes) if (index.canHandle(query)) return true;
        return false;
    }

    /** The documents an iterator gives, as the lazy stream AbstractMongoCollection matches, skips and limits. */
    public static Stream<Document> stream(Iterator<Document> documents) {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(documents, Spliterator.ORDERED | Spliterator.NONNULL), false);
    }
}
