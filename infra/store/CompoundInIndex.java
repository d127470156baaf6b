// In mongo-java-server's package: H2UniqueIndex's constructor is package-private.
package de.bwaldvogel.mongo.backend.h2;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.h2.mvstore.MVMap;

import de.bwaldvogel.mongo.backend.IndexKey;
import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;

/**
 * A unique index that also answers `$in` on the fields of a compound index, as MongoDB does:
 * `{account: "a", email: {$in: [...]}}` becomes one lookup per combination of values.
 * mongo-java-server's own index refuses such queries (its issue #80), so they scanned the whole
 * collection. The documents found are matched against the whole query afterwards as for any
 * index lookup, so the index only has to find a superset of them.
 */
final class CompoundInIndex extends H2UniqueIndex {
    /** More combinations than this are left to a scan. */
    private static final int MAX_LOOKUPS = 1000;

    CompoundInIndex(MVMap<KeyValue, Object> map, String name, List<IndexKey> keys, boolean sparse) {
        super(map, name, keys, sparse);
    }

    @Override
    public synchronized boolean canHandle(Document query) {
        return super.canHandle(query) || lookups(query) != null;
    }

    @Override
    public synchronized Iterable<Object> getPositions(Document query) {
        if (super.canHandle(query)) return super.getPositions(query);
        Set<Object> positions = new LinkedHashSet<>();
        for (KeyValue key : lookups(query)) {
            Object position = getPosition(key);
            if (position != null) positions.add(position);
        }
        return positions;
    }

    /**
     * The index keys to look up for a query on exactly this compound index's fields, each an
     * equality or an `$in` of plain values; null for any other query.
     */
    private List<KeyValue> lookups(Document query) {
        if (!isCompoundIndex() || !query.keySet().equals(keySet())) return null;
        List<List<Object>> combinations = new ArrayList<>();
        combinations.add(new ArrayList<>());
        for (String field : keys()) {
            Collection<?> values = candidates(query.get(field));
            if (values == null || values.isEmpty() || (long) combinations.size() * values.size() > MAX_LOOKUPS) return null;
            List<List<Object>> next = new ArrayList<>(combinations.size() * values.size());
            for (List<Object> prefix : combinations) {
                for (Object value : values) {
                    List<Object> combination = new ArrayList<>(prefix);
                    combination.add(value);
                    next.add(combination);
                }
            }
            combinations = next;
        }
        List<KeyValue> keys = new ArrayList<>(combinations.size());
        for (List<Object> combination : combinations) keys.add(new KeyValue(combination).normalized()); // as the index stores them
        return keys;
    }

    /** The values a field's condition accepts: one for an equality, the list of an `$in`; null otherwise. */
    private static Collection<?> candidates(Object condition) {
        if (!(condition instanceof Document)) return isPlain(condition) ? List.of(condition) : null;
        Document operators = (Document) condition;
        if (operators.size() != 1 || !(operators.get("$in") instanceof Collection)) return null;
        Collection<?> values = (Collection<?>) operators.get("$in");
        for (Object value : values) if (!isPlain(value)) return null;
        return values;
    }

    /** A value an index key holds as is: not null or missing (which sparse keys treat apart), an array, a sub-document or a pattern. */
    private static boolean isPlain(Object value) {
        return value != null && !(value instanceof Collection) && !(value instanceof Map)
            && !(value instanceof BsonRegularExpression) && !(value instanceof Missing);
    }
}
