// One per client connection (file backend only): holds a reply until what it acknowledges is on
// disk. mongo-java-server handles a request synchronously on the connection's event loop and
// writes its reply right away; this handler sits in front of it, notes on the way in whether the
// request may write, and on the way out parks the reply until the GroupCommitter's next commit.
// The event loop is never blocked: it moves on to other connections while the commit runs.

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import de.bwaldvogel.mongo.wire.message.MongoReply;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

final class DurableReplies extends ChannelDuplexHandler {

    /**
     * Commands that never change the store (lower case). Anything else — insert, update, delete,
     * findAndModify, create/drop of collections and indexes, and any command not listed — is
     * treated as a write.
     */
    private static final Set<String> READ_ONLY = Set.of(
        "find", "getmore", "killcursors", "count", "distinct", "explain",
        "listcollections", "listdatabases", "listindexes", "dbstats", "collstats", "datasize", "validate",
        "hello", "ismaster", "ping", "buildinfo", "serverstatus", "hostinfo", "whatsmyuri", "getparameter",
        "getcmdlineopts", "getlog", "connectionstatus", "currentop", "listcommands", "getlasterror",
        "endsessions", "getfreemonitoringstatus", "replsetgetstatus");

    private record Held(Object reply, ChannelPromise promise, CompletableFuture<Void> durable) {}

    private final GroupCommitter committer;
    // Both touched only on this connection's event loop.
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    private boolean requestMayWrite;

    DurableReplies(GroupCommitter committer) {
        this.committer = committer;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientRequest) requestMayWrite = mayWrite((ClientRequest) msg);
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object reply, ChannelPromise promise) {
        boolean afterWrite = requestMayWrite;
        requestMayWrite = false;
        // A write waits for the next commit. So does a read while the store holds changes not yet
        // on disk: it may show them, and a client must not act on data a crash could still undo.
        CompletableFuture<Void> durable = afterWrite || !committer.isDurable() ? committer.commitAfterNow() : null;
        if (durable == null && held.isEmpty()) {
            ctx.write(reply, promise);
            return;
        }
        // Replies leave in request order, so a fast one waits behind a parked one.
        held.add(new Held(reply, promise, durable));
        if (durable != null) durable.whenComplete((ok, error) -> ctx.executor().execute(() -> release(ctx)));
    }

    /** Sends the parked replies whose commit is done, in order (on the event loop). */
    private void release(ChannelHandlerContext ctx) {
        boolean sent = false;
        while (!held.isEmpty()) {
            Held next = held.peek();
            if (next.durable() != null && !next.durable().isDone()) break;
            held.poll();
            Object reply = next.durable() != null && next.durable().isCompletedExceptionally()
                ? notDurable(next.reply(), next.durable()) : next.reply();
            ctx.write(reply, next.promise());
            sent = true;
        }
        if (sent) ctx.flush();
    }

    /** The commit failed: the client gets an error instead of an acknowledgement. */
    private static Object notDurable(Object reply, CompletableFuture<Void> durable) {
        Throwable cause = durable.handle((ok, error) -> error).join();
        Document error = new Document();
        String message = "herald-store could not make this write durable, the store is stopping: " + cause;
        error.put("$err", message);
        error.put("errmsg", message);
        error.put("code", 1);
        error.put("codeName", "InternalError");
        error.put("ok", 0);
        if (reply instanceof MongoMessage) {
            MongoMessage m = (MongoMessage) reply;
            return new MongoMessage(m.getChannel(), m.getHeader(), error);
        }
        if (reply instanceof MongoReply) return new MongoReply(((MongoReply) reply).getHeader(), error);
        return reply;
    }

    /** Whether a request may change the store; unknown ones are taken to. */
    static boolean mayWrite(ClientRequest request) {
        Document command;
        if (request instanceof MongoMessage) {
            command = ((MongoMessage) request).getDocument();
        } else if (request instanceof MongoQuery) {
            MongoQuery query = (MongoQuery) request;
            if (!query.getCollectionName().startsWith("$cmd")) return false; // legacy find
            command = query.getQuery();
        } else {
            return true;
        }
        if (command == null || command.isEmpty()) return true;
        String name = command.keySet().iterator().next();
        if ("$query".equals(name) && command.get(name) instanceof Document) { // legacy wrapped command
            command = (Document) command.get(name);
            if (command.isEmpty()) return true;
            name = command.keySet().iterator().next();
        }
        name = name.toLowerCase(Locale.ROOT);
        if (name.equals("aggregate")) return writesOutput(command.get("pipeline"));
        return !READ_ONLY.contains(name);
    }

    /** An aggregation writes when a stage is $out or $merge. */
    private static boolean writesOutput(Object pipeline) {
        if (!(pipeline instanceof Collection)) return true;
        for (Object stage : (Collection<?>) pipeline) {
            if (!(stage instanceof Document)) return true;
            for (String op : List.of("$out", "$merge")) if (((Document) stage).containsKey(op)) return true;
        }
        return false;
    }
}
