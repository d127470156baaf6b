// In mongo-java-server's package: Index.keys() is protected.
package de.bwaldvogel.mongo.backend;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import de.bwaldvogel.mongo.bson.BsonRegularExpression;
import de.bwaldvogel.mongo.bson.Document;

/**
 * Which keys of a unique index a query can be answered from, as MongoDB's planner would use the
 * index. mongo-java-server uses a unique index only for a query on exactly its fields and, for
 * `$in`, only on a single field (its issue #80); anything else scans the whole collection. So
 * `{_id: {$in: [...]}, account: "a"}`, the shape of every account-scoped lookup here, read every
 * document of the collection. A query that sets each of the index's fields by an equality or an
 * `$in` of plain values, whatever else it asks, becomes one lookup per combination of values. The
 * documents found are matched against the whole query afterwards (AbstractMongoCollection does so
 * for any index), so the lookups only have to find a superset of the answer.
 */
public final class IndexLookups {
    /**
     * More combinations than this are left to a scan. A lookup costs microseconds and a scan every
     * document of the collection: a send ledger's page of 1,500 ids (a campaign's resend reading
     * three rounds) was a full read of `messages` at the former 1,000. Beyond 20,000 the `$in` list
     * itself is the larger cost.
     */
    private static final int MAX_LOOKUPS = 20_000;

    private IndexLookups() {}

    /** The positions of the documents whose index keys the query fixes (`forQuery`'s keys), found with `lookup`. */
    public static <P> Set<P> positions(List<String> fields, Document query, Function<KeyValue, P> lookup) {
        Set<P> positions = new LinkedHashSet<>();
        for (KeyValue key : forQuery(fields, query)) {
            P position = lookup.apply(key);
            if (position != null) positions.add(position);
        }
        return positions;
    }

    /** The index keys to look up, normalised as the index stores them; null when the query does not fix every field. */
    public static List<KeyValue> forQuery(List<String> fields, Document query) {
        if (!query.keySet().containsAll(fields)) return null;
        List<List<Object>> combinations = new ArrayList<>();
        combinations.add(new ArrayList<>());
        for (String field : fields) {
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
        for (List<Object> combination : combinations) keys.add(new KeyValue(combination).normalized());
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
