// Makes every request see, and answer with, a consistent store. mongo-java-server hands replies
// the live Document objects it keeps (the H2 backend's MVMap page cache, the memory backend's
// maps) and encodes them after the collection's lock is released; a concurrent update of the
// same document then changes a reply being sent. Measured: 20 clients incrementing one counter
// with findOneAndUpdate got the same "new" value 22 times in 2,000 on the memory backend and
// 1,580 times on the file (where replies wait for the commit) — duplicate ids for Herald.
//
// So each request runs under its collection's lock (shared for reads, exclusive for writes: see
// StoreLocks), and its reply is deep-copied before the lock is released: the copy is what gets
// encoded or parked.

import java.util.ArrayList;
import java.util.List;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.ReplyFlag;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoReply;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

final class SnapshotReplies extends ChannelDuplexHandler {

    private final StoreLocks locks;

    /** @param locks one per server, shared by every connection */
    SnapshotReplies(StoreLocks locks) {
        this.locks = locks;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ClientRequest)) {
            ctx.fireChannelRead(msg);
            return;
        }
        // The backend handles the request and writes its reply before fireChannelRead returns
        // (MongoDatabaseHandler is synchronous), so write() below runs under this lock.
        StoreLocks.Held held = locks.acquire(Commands.classify((ClientRequest) msg));
        try {
            ctx.fireChannelRead(msg);
        } finally {
            held.release();
        }
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object reply, ChannelPromise promise) {
        ctx.write(snapshot(reply), promise);
    }

    private static Object snapshot(Object reply) {
        if (reply instanceof MongoMessage) {
            MongoMessage m = (MongoMessage) reply;
            return new MongoMessage(m.getChannel(), m.getHeader(), m.getDocument().cloneDeeply());
        }
        if (reply instanceof MongoReply) {
            MongoReply r = (MongoReply) reply;
            List<Document> copies = new ArrayList<>(r.getDocuments().size());
            for (Document d : r.getDocuments()) copies.add(d.cloneDeeply());
            List<ReplyFlag> flags = new ArrayList<>();
            for (ReplyFlag flag : ReplyFlag.values()) if (flag.addTo(0) == (flag.addTo(0) & r.getFlags())) flags.add(flag);
            return new MongoReply(r.getHeader(), copies, r.getCursorId(), flags.toArray(new ReplyFlag[0]));
        }
        return reply;
    }
}
