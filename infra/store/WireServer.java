// The MongoDB wire-protocol server: mongo-java-server's own netty pipeline (as MongoServer.bind
// builds it in 1.47.0), plus our two handlers in front of the backend. MongoServer offers no way
// to add a handler, hence this copy of its bootstrap and shutdown.

import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

import de.bwaldvogel.mongo.MongoBackend;
import de.bwaldvogel.mongo.wire.MongoDatabaseHandler;
import de.bwaldvogel.mongo.wire.MongoExceptionHandler;
import de.bwaldvogel.mongo.wire.MongoWireMessageEncoder;
import de.bwaldvogel.mongo.wire.MongoWireProtocolHandler;
import de.bwaldvogel.mongo.wire.MongoWireReplyEncoder;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.util.concurrent.DefaultThreadFactory;

final class WireServer {

    private final MongoBackend backend;
    /** Null on the memory backend: nothing to make durable. */
    private final GroupCommitter committer;
    private final PendingWrites pending = new PendingWrites(); // shared by all connections
    /** Reads of a collection share its lock, writes hold it alone: see SnapshotReplies. */
    private final StoreLocks locks = new StoreLocks();
    private EventLoopGroup bossGroup;
    private EventLoopGroup workerGroup;
    private ChannelGroup clients;
    private Channel listener;

    WireServer(MongoBackend backend, GroupCommitter committer) {
        this.backend = backend;
        this.committer = committer;
    }

    void bind(String host, int port) {
        bossGroup = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("herald-store-accept"), NioIoHandler.newFactory());
        // 0: netty's default, two event loops per core.
        workerGroup = new MultiThreadIoEventLoopGroup(0, new DefaultThreadFactory("herald-store-io"), NioIoHandler.newFactory());
        clients = new DefaultChannelGroup("herald-store-clients", workerGroup.next());
        try {
            listener = new ServerBootstrap()
                .group(bossGroup, workerGroup)
                .channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 100)
                .localAddress(new InetSocketAddress(host, port))
                .childOption(ChannelOption.TCP_NODELAY, Boolean.TRUE)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    public void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new MongoWireReplyEncoder());
                        ch.pipeline().addLast(new MongoWireMessageEncoder());
                        ch.pipeline().addLast(new MongoWireProtocolHandler());
                        // Before DepthLimit, so that its refusals keep their place among parked replies.
                        if (committer != null) ch.pipeline().addLast(new DurableReplies(committer, pending));
                        ch.pipeline().addLast(new DepthLimit());
                        ch.pipeline().addLast(new SnapshotReplies(locks));
                        ch.pipeline().addLast(new MongoDatabaseHandler(backend, clients));
                        ch.pipeline().addLast(new MongoExceptionHandler());
                    }
                })
                .bind().syncUninterruptibly().channel();
        } catch (Exception e) { // netty rethrows the checked BindException undeclared; the event loops would keep the JVM alive
            close();
            throw e;
        }
    }

    /** Stops listening, closes the client connections and ends the event loops (not the backend). */
    void close() {
        if (listener != null) listener.close().syncUninterruptibly();
        if (clients != null) clients.close().syncUninterruptibly();
        for (EventLoopGroup group : new EventLoopGroup[] { bossGroup, workerGroup }) {
            if (group != null) group.shutdownGracefully(0, 5, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
