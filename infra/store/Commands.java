// What a request does to the store, read from its command document: whether it may write, which
// collection it touches, and whether it reads stored data at all. Used by DurableReplies.

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;

final class Commands {

    /**
     * @param write     may change the store; anything not known to be a read is taken to
     * @param namespace "db.collection" the command reads or writes, or null when that may be more
     *                  than one collection (listCollections, dropDatabase, an unknown command)
     * @param readsData returns stored data (false for hello, ping and the like)
     */
    record Kind(boolean write, String namespace, boolean readsData) {}

    /** Reads that return no stored data (lower case). */
    private static final Set<String> NO_DATA = Set.of(
        "hello", "ismaster", "ping", "buildinfo", "serverstatus", "hostinfo", "whatsmyuri", "getparameter",
        "getcmdlineopts", "getlog", "connectionstatus", "currentop", "listcommands", "getlasterror",
        "endsessions", "killcursors", "getfreemonitoringstatus", "replsetgetstatus");

    /** Reads of stored data (lower case); aggregate is one unless it has an $out or $merge stage. */
    private static final Set<String> READS = Set.of(
        "find", "getmore", "count", "distinct", "aggregate", "explain", "listcollections", "listdatabases",
        "listindexes", "dbstats", "collstats", "datasize", "validate");

    /** Writes that change only the collection they name (lower case); other writes may touch any. */
    private static final Set<String> ONE_COLLECTION_WRITES = Set.of(
        "insert", "update", "delete", "findandmodify", "create", "createindexes", "dropindexes", "drop");

    private Commands() {}

    static Kind classify(ClientRequest request) {
        Document command;
        if (request instanceof MongoMessage) {
            command = ((MongoMessage) request).getDocument();
        } else if (request instanceof MongoQuery) {
            MongoQuery query = (MongoQuery) request;
            if (!query.getCollectionName().startsWith("$cmd")) { // a legacy query: a find
                return new Kind(false, query.getFullCollectionName(), true);
            }
            command = query.getQuery();
        } else {
            return new Kind(true, null, true);
        }
        if (command == null || command.isEmpty()) return new Kind(true, null, true);
        String name = command.keySet().iterator().next();
        if ("$query".equals(name) && command.get(name) instanceof Document) { // legacy wrapped command
            command = (Document) command.get(name);
            if (command.isEmpty()) return new Kind(true, null, true);
            name = command.keySet().iterator().next();
        }
        String lower = name.toLowerCase(Locale.ROOT);
        // getMore names its collection in a field; the others as the command's own value.
        Object collection = lower.equals("getmore") ? command.get("collection") : command.get(name);
        String namespace = collection instanceof String ? request.getDatabaseName() + "." + collection : null;
        if (NO_DATA.contains(lower)) return new Kind(false, null, false);
        boolean aggregate = lower.equals("aggregate");
        boolean read = READS.contains(lower) && !(aggregate && hasStage(command.get("pipeline"), WRITING_STAGES));
        // An aggregation that reads another collection holds the whole store (see StoreLocks).
        if (read) return new Kind(false, aggregate && hasStage(command.get("pipeline"), JOINING_STAGES) ? null : namespace, true);
        return new Kind(true, ONE_COLLECTION_WRITES.contains(lower) ? namespace : null, true);
    }

    private static final List<String> WRITING_STAGES = List.of("$out", "$merge");
    /** Stages that read other collections (their sub-pipelines are not searched: $lookup's may hold a $unionWith, and $lookup is here already). */
    private static final List<String> JOINING_STAGES = List.of("$lookup", "$unionWith", "$graphLookup", "$facet");

    /** Whether a stage of the pipeline is one of `ops` (true when the pipeline is unreadable). */
    private static boolean hasStage(Object pipeline, List<String> ops) {
        if (!(pipeline instanceof Collection)) return true;
        for (Object stage : (Collection<?>) pipeline) {
            if (!(stage instanceof Document)) return true;
            for (String op : ops) if (((Document) stage).containsKey(op)) return true;
        }
        return false;
    }
}
