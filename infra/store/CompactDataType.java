// In mongo-java-server's package, beside NativeKeyBackend, which opens the maps with it.
package de.bwaldvogel.mongo.backend.h2;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.h2.mvstore.DataUtils;
import org.h2.mvstore.WriteBuffer;
import org.h2.mvstore.type.ObjectDataType;

import de.bwaldvogel.mongo.backend.KeyValue;
import de.bwaldvogel.mongo.backend.Missing;
import de.bwaldvogel.mongo.backend.ValueComparator;
import de.bwaldvogel.mongo.bson.Document;
import de.bwaldvogel.mongo.wire.bson.BsonDecoder;
import de.bwaldvogel.mongo.wire.bson.BsonEncoder;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;

/**
 * How the store's documents and index keys are written to its file, and how index keys compare.
 *
 * mongo-java-server leaves both to H2's ObjectDataType, which Java-serialises every document and
 * index key (a fresh ObjectOutputStream, class descriptors and all) each time a commit rewrites the
 * page holding it, and compares two index keys by serialising both. Measured on contact upserts,
 * that serialisation was the commit thread's main work, and every acknowledged write waits for a
 * commit. Here documents are written as BSON, index keys value by value, and keys compare natively
 * in MongoDB's order.
 *
 * The new forms sit behind tags ObjectDataType never writes (it uses 0–119), so a value it wrote
 * earlier is still read by it: files from before need no conversion (index maps do need their
 * order rebuilt once, see NativeKeyBackend). A file written here cannot be opened by an older store.
 */
final class CompactDataType extends ObjectDataType {
    static final int TAG_KEY_VALUE = 200;
    static final int TAG_BSON_DOCUMENT = 201;
    static final int TAG_MISSING = 202;

    private static final ValueComparator ORDER = ValueComparator.ascWithoutListHandling();

    /** One encoding buffer per thread: pages are written by H2's serialisation thread, and on close by the closing one. */
    private static final ThreadLocal<ByteBuf> BSON_BUFFER = ThreadLocal.withInitial(() -> Unpooled.buffer(4096));

    /** KeyValue keys compare value by value (MongoDB's order); anything else as H2 would. */
    @Override
    public int compare(Object a, Object b) {
        if (a instanceof KeyValue && b instanceof KeyValue) {
            KeyValue x = (KeyValue) a;
            KeyValue y = (KeyValue) b;
            int n = Math.min(x.size(), y.size());
            for (int i = 0; i < n; i++) {
                int c = ORDER.compare(x.get(i), y.get(i));
                if (c != 0) return c;
            }
            return Integer.compare(x.size(), y.size());
        }
        return super.compare(a, b);
    }

    @Override
    public void write(WriteBuffer buff, Object obj) {
        if (obj instanceof KeyValue) {
            KeyValue key = (KeyValue) obj;
            buff.put((byte) TAG_KEY_VALUE).putVarInt(key.size());
            for (Object value : key) write(buff, value);
        } else if (obj instanceof Missing) {
            buff.put((byte) TAG_MISSING);
        } else if (obj instanceof Document) {
            ByteBuf bson = BSON_BUFFER.get().clear();
            try {
                BsonEncoder.encodeDocument((Document) obj, bson);
            } catch (RuntimeException notBson) {
                super.write(buff, obj); // a value BSON has no type for: serialised as before
                return;
            }
            buff.put((byte) TAG_BSON_DOCUMENT).putVarInt(bson.readableBytes());
            buff.put(bson.nioBuffer());
        } else {
            super.write(buff, obj);
        }
    }

    @Override
    public Object read(ByteBuffer buff) {
        int tag = buff.get(buff.position()) & 0xff;
        switch (tag) {
            case TAG_KEY_VALUE: {
                buff.get();
                int size = DataUtils.readVarInt(buff);
                List<Object> values = new ArrayList<>(size);
                for (int i = 0; i < size; i++) values.add(read(buff));
                return new KeyValue(values);
            }
            case TAG_MISSING:
                buff.get();
                return Missing.getInstance();
            case TAG_BSON_DOCUMENT: {
                buff.get();
                int length = DataUtils.readVarInt(buff);
                ByteBuffer bson = buff.slice();
                bson.limit(length);
                buff.position(buff.position() + length);
                return BsonDecoder.decodeBson(Unpooled.wrappedBuffer(bson));
            }
            default:
                return super.read(buff);
        }
    }

    /**
     * H2 sizes pages by the memory of their values. ObjectDataType's guess for anything it
     * serialises is a running average of its serialised sizes, which starts at 10 KB and would
     * never move (it no longer serialises them): estimated here instead, cheaply.
     */
    @Override
    public int getMemory(Object obj) {
        return estimate(obj);
    }

    private static int estimate(Object obj) {
        if (obj instanceof String) return 40 + 2 * ((String) obj).length();
        if (obj instanceof Map) {
            int size = 64;
            for (Map.Entry<?, ?> entry : ((Map<?, ?>) obj).entrySet()) size += 32 + estimate(entry.getKey()) + estimate(entry.getValue());
            return size;
        }
        if (obj instanceof Collection) {
            int size = 48;
            for (Object value : (Collection<?>) obj) size += 8 + estimate(value);
            return size;
        }
        if (obj instanceof KeyValue) {
            int size = 48;
            for (Object value : (KeyValue) obj) size += 8 + estimate(value);
            return size;
        }
        if (obj instanceof byte[]) return 24 + ((byte[]) obj).length;
        return 24;
    }
}
