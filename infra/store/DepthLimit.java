// Refuses requests nested deeper than MongoDB's own limit (maxBSONDepth, 200), before they reach
// the backend. The backend and the H2 file serialise documents recursively: a document a few
// hundred levels deep once overflowed the stack of the MVStore writer (the store closed and lost
// it), or was written and then could not be read back at start (the store would not start).
// The JVM's stack (-Xss, see infra/store.ts) is sized far above this limit.
//
// Dotted field names count as the levels they address ("a.b.c": 3), so an update cannot build,
// through a long path, a document deeper than the limit either.

import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Map;

import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.message.ClientRequest;
import de.bwaldvogel.mongo.wire.message.MessageHeader;
import de.bwaldvogel.mongo.wire.message.MongoMessage;
import de.bwaldvogel.mongo.wire.message.MongoQuery;
import de.bwaldvogel.mongo.wire.message.MongoReply;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

final class DepthLimit extends ChannelInboundHandlerAdapter {

    static final int MAX_DEPTH = 200;

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Document body = msg instanceof MongoMessage ? ((MongoMessage) msg).getDocument()
            : msg instanceof MongoQuery ? ((MongoQuery) msg).getQuery() : null;
        if (body == null || depthOf(body, MAX_DEPTH) <= MAX_DEPTH) {
            ctx.fireChannelRead(msg);
            return;
        }
        Document error = new Document();
        String message = "request nested more than " + MAX_DEPTH + " levels deep";
        error.put("$err", message);
        error.put("errmsg", message);
        error.put("code", 15);
        error.put("codeName", "Overflow");
        error.put("ok", 0);
        ClientRequest request = (ClientRequest) msg;
        MessageHeader header = new MessageHeader(0, request.getHeader().getRequestID());
        ctx.writeAndFlush(msg instanceof MongoMessage
            ? new MongoMessage(request.getChannel(), header, error)
            : new MongoReply(header, error));
    }

    /** Nesting depth (the document itself is 1), counted without recursion; stops past limit. */
    static int depthOf(Document document, int limit) {
        ArrayDeque<Object> values = new ArrayDeque<>();
        ArrayDeque<Integer> depths = new ArrayDeque<>();
        values.push(document);
        depths.push(1);
        int max = 0;
        while (!values.isEmpty() && max <= limit) {
            Object value = values.pop();
            int depth = depths.pop();
            max = Math.max(max, depth);
            if (value instanceof Map) {
                for (Map.Entry<?, ?> field : ((Map<?, ?>) value).entrySet()) {
                    int path = depth + dots(String.valueOf(field.getKey())); // "a.b" opens one more level
                    max = Math.max(max, path);
                    push(values, depths, field.getValue(), path + 1);
                }
            } else if (value instanceof Collection) {
                for (Object element : (Collection<?>) value) push(values, depths, element, depth + 1);
            }
        }
        return max;
    }

    private static void push(ArrayDeque<Object> values, ArrayDeque<Integer> depths, Object value, int depth) {
        if (value instanceof Map || value instanceof Collection) {
            values.push(value);
            depths.push(depth);
        }
    }

    private static int dots(String key) {
        int n = 0;
        for (int i = key.indexOf('.'); i >= 0; i = key.indexOf('.', i + 1)) n++;
        return n;
    }
}
