// In mongo-java-server's package, beside IndexLookups.
package de.bwaldvogel.mongo.backend;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.BiPredicate;

import de.bwaldvogel.mongo.bson.Document;

/**
 * `{field: {$in: [many strings]}}` matched by a hash set. mongo-java-server's matcher compares a
 * document's value with each listed value in turn (DefaultQueryMatcher), and every document an
 * index lookup finds is matched against the whole query again: reading 1,000 ledger rows by
 * `_id: {$in: [1,000 ids]}, account` made a million comparisons, ~100 ms of the store. Here the
 * query's top-level fields whose `$in` lists only strings are checked against sets built once per
 * query (a query is one Document object for every document it is matched with), and the rest of
 * the query goes to the library's matcher. A document whose value of such a field is not a string
 * (an array, a number, missing) is matched by the library alone, so the answers are the same.
 */
public final class InMatch {
    /** Shorter lists are as quick to walk. */
    private static final int MIN_VALUES = 8;

    private record Plan(Map<String, Set<String>> sets, Document rest) {}

    private record Planned(Document query, Plan plan) {}

    /** The last query's plan: a query matches many documents in a row. */
    private volatile Planned last;

    public boolean matches(Document document, Document query, BiPredicate<Document, Document> library) {
        Plan plan = planOf(query);
        if (plan == null) return library.test(document, query);
        for (Map.Entry<String, Set<String>> field : plan.sets().entrySet()) {
            if (!(document.get(field.getKey()) instanceof String value)) return library.test(document, query);
            if (!field.getValue().contains(value)) return false;
        }
        return plan.rest().isEmpty() || library.test(document, plan.rest());
    }

    private Plan planOf(Document query) {
        Planned seen = last;
        if (seen != null && seen.query() == query) return seen.plan();
        Plan plan = plan(query);
        last = new Planned(query, plan);
        return plan;
    }

    /** The fields this class matches and the rest of the query; null when there is no such field. */
    private static Plan plan(Document query) {
        Map<String, Set<String>> sets = new HashMap<>();
        Document rest = new Document();
        for (Map.Entry<String, Object> entry : query.entrySet()) {
            Set<String> strings = entry.getKey().startsWith("$") || entry.getKey().contains(".") ? null : stringsOf(entry.getValue());
            if (strings != null) sets.put(entry.getKey(), strings);
            else rest.put(entry.getKey(), entry.getValue());
        }
        return sets.isEmpty() ? null : new Plan(sets, rest);
    }

    /** The values of `{$in: [...]}` when it is all the condition says and they are MIN_VALUES strings or more. */
    private static Set<String> stringsOf(Object condition) {
        if (!(condition instanceof Document document) || document.size() != 1 || !(document.get("$in") instanceof java.util.Collection<?> values)) return null;
        if (values.size() < MIN_VALUES) return null;
        Set<String> strings = new HashSet<>(values.size() * 2);
        for (Object value : values) {
            if (!(value instanceof String text)) return null;
            strings.add(text);
        }
        return strings;
    }
}
