// One per client connection (file backend only): holds a reply until what it acknowledges, or
// shows, is on disk. mongo-java-server handles a request synchronously on the connection's event
// loop and writes its reply right away; this handler sits in front of it, classifies the request
// on the way in (Commands), and on the way out parks the reply of a write — and of a read of a
// collection with writes not yet on disk (PendingWrites) — until the GroupCommitter's next commit.
// The event loop is never blocked: it moves on to other connections while the commit runs.

import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoReply;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

final class DurableReplies extends ChannelDuplexHandler {

    private record Held(Object reply, ChannelPromise promise, CompletableFuture<Void> durable) {}

    private final GroupCommitter committer;
    private final PendingWrites pending;
    // Both touched only on this connection's event loop.
    private final ArrayDeque<Held> held = new ArrayDeque<>();
    /** The request being handled, until its reply goes out. */
    private Commands.Kind request;

    DurableReplies(GroupCommitter committer, PendingWrites pending) {
        this.committer = committer;
        this.pending = pending;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ClientRequest) {
            settleUnanswered();
            request = Commands.classify((ClientRequest) msg);
            // Registered before the write runs, so a read that sees its effect also sees it pending.
            if (request.write()) pending.begin(request.namespace());
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object reply, ChannelPromise promise) {
        Commands.Kind answered = request;
        request = null;
        CompletableFuture<Void> durable = null;
        if (answered != null && answered.write()) {
            // A write waits for a commit that starts after it ran.
            durable = committer.commitAfterNow();
            endWhenDurable(answered.namespace(), durable);
        } else if (answered != null && answered.readsData() && pending.affect(answered.namespace())) {
            // So does a read of a collection with writes not yet on disk: it may show them, and a
            // client must not act on data a crash could still undo.
            durable = committer.commitAfterNow();
        }
        if (durable == null && held.isEmpty()) {
            ctx.write(reply, promise);
            return;
        }
        // Replies leave in request order, so a fast one waits behind a parked one.
        held.add(new Held(reply, promise, durable));
        if (durable != null) durable.whenComplete((ok, error) -> ctx.executor().execute(() -> release(ctx)));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        settleUnanswered();
        super.channelInactive(ctx);
    }

    /** A write that got no reply (its connection failed) still counts as pending until committed. */
    private void settleUnanswered() {
        if (request != null && request.write()) endWhenDurable(request.namespace(), committer.commitAfterNow());
        request = null;
    }

    private void endWhenDurable(String namespace, CompletableFuture<Void> durable) {
        durable.whenComplete((ok, error) -> pending.end(namespace));
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

    /** The commit failed: the client gets an error instead of a reply a crash could undo. */
    private static Object notDurable(Object reply, CompletableFuture<Void> durable) {
        Throwable cause = durable.handle((ok, error) -> error).join();
        Document error = new Document();
        String message = "herald-store could not commit to its file, the store is stopping: " + cause;
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
}
