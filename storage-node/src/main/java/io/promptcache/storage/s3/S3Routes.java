package io.promptcache.storage.s3;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The S3 API, path-style, on the node's HTTP port: every path except Quarkus' own {@code /q/...}. PutObject
 * streams on the event loop; everything else runs on worker threads (RocksDB and file system calls).
 */
@ApplicationScoped
public class S3Routes {

    /** Every path but Quarkus' non-application endpoints (bucket names are at least 3 characters). */
    private static final String S3_PATHS = "^/(?!q/).*";

    private final ReadHandlers reads;
    private final PutObjectHandler puts;
    private final DeleteObjectsHandler batchDeletes;

    S3Routes(ObjectStore store, StorageConfig config) {
        this.reads = new ReadHandlers(store);
        this.puts = new PutObjectHandler(store, config.maxObjectBytes());
        this.batchDeletes = new DeleteObjectsHandler(store);
    }

    void register(@Observes Router router) {
        router.routeWithRegex(HttpMethod.PUT, S3_PATHS).handler(this::put);
        // POST bodies (DeleteObjects) are small XML documents: buffer them, bounded
        router.routeWithRegex(HttpMethod.POST, S3_PATHS).handler(BodyHandler.create(false)
                .setBodyLimit(DeleteObjectsHandler.MAX_BODY_BYTES));
        router.routeWithRegex(S3_PATHS).blockingHandler(this::dispatch, false);
    }

    private void put(RoutingContext ctx) {
        S3Path path = begin(ctx);
        if (path == null) {
            return;
        }
        if (path.key() == null) {
            ctx.next();
            return;
        }
        try {
            puts.handle(ctx, path);
        } catch (RuntimeException e) {
            S3Errors.send(ctx, e, path.resource());
        }
    }

    private void dispatch(RoutingContext ctx) {
        S3Path path = begin(ctx);
        if (path == null) {
            return;
        }
        try {
            HttpMethod method = ctx.request().method();
            if (path.bucket() == null) {
                requireMethod(method == HttpMethod.GET, method);
                reads.listBuckets(ctx);
            } else if (path.key() == null) {
                bucketRequest(ctx, path, method);
            } else if (method == HttpMethod.GET || method == HttpMethod.HEAD) {
                reads.getObject(ctx, path, method == HttpMethod.HEAD);
            } else {
                requireMethod(method == HttpMethod.DELETE, method);
                reads.deleteObject(ctx, path);
            }
        } catch (RuntimeException e) {
            S3Errors.send(ctx, e, path.resource());
        }
    }

    private void bucketRequest(RoutingContext ctx, S3Path path, HttpMethod method) {
        if (method == HttpMethod.GET) {
            reads.listObjects(ctx, path);
        } else if (method == HttpMethod.POST && ctx.request().params().contains("delete")) {
            batchDeletes.handle(ctx, path);
        } else if (method == HttpMethod.HEAD) {
            reads.headBucket(ctx, path);
        } else if (method == HttpMethod.PUT) {
            reads.createBucket(ctx, path);
        } else {
            requireMethod(method == HttpMethod.DELETE, method);
            reads.deleteBucket(ctx, path);
        }
    }

    /** Stamps the request id and parses the path; on a bad path answers the error and returns null. */
    private static S3Path begin(RoutingContext ctx) {
        if (ctx.response().headers().get(S3Headers.REQUEST_ID) == null) {
            ctx.response().putHeader(S3Headers.REQUEST_ID, S3Headers.newRequestId());
        }
        try {
            return S3Path.of(ctx.request().path());
        } catch (S3Exception e) {
            S3Errors.send(ctx, e, ctx.request().path());
            return null;
        }
    }

    private static void requireMethod(boolean allowed, HttpMethod method) {
        if (!allowed) {
            throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT, "Method " + method + " is not supported here.");
        }
    }
}
