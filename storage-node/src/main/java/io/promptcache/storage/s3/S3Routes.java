package io.promptcache.storage.s3;

import java.util.List;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

import io.promptcache.storage.auth.SigningContext;
import io.promptcache.storage.config.StorageConfig;
import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;
import io.promptcache.storage.store.ObjectStore;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;

/**
 * The S3 API, path-style (and virtual-hosted style on the configured domains), on the node's HTTP port: every path except Quarkus' own {@code /q/...}. PutObject
 * streams on the event loop. GetObject and HeadObject run on the event loop too: one RocksDB point read (block
 * cache), then the body from RAM, or from its file with sendfile after the chunks it reads passed their checksums,
 * so a hot GET never hops threads. Everything else (and GETs that would check more than
 * {@link io.promptcache.storage.store.ObjectStore#KEPT_CHECKED_BYTES} from disk) runs on worker threads.
 */
@ApplicationScoped
public class S3Routes {

    /** Every path but Quarkus' non-application endpoints (bucket names are at least 3 characters). */
    private static final String S3_PATHS = "^/(?!q/).*";
    private static final String OPERATION = "promptcache.s3.operation";
    private static final String PATH = "promptcache.s3.path";

    private final ReadHandlers reads;
    private final ListingHandlers listings;
    private final PutObjectHandler puts;
    private final DeleteObjectsHandler batchDeletes;
    private final MultipartHandlers multipart;
    private final CopyHandlers copies;
    private final Acls acls;

    private final S3Metrics metrics;
    /** Null when auth is off. */
    private final Authenticator authenticator;
    private final VirtualHosts virtualHosts;

    S3Routes(ObjectStore store, StorageConfig config, S3Metrics metrics) {
        this.metrics = metrics;
        this.authenticator = Authenticator.of(config.auth());
        this.virtualHosts = new VirtualHosts(config.virtualHostDomains().orElse(List.of()));
        this.reads = new ReadHandlers(store);
        this.listings = new ListingHandlers(store, config.auth().region());
        this.puts = new PutObjectHandler(store, config.maxObjectBytes(), config.prefixPuts());
        this.batchDeletes = new DeleteObjectsHandler(store);
        this.multipart = new MultipartHandlers(store.multipart());
        this.copies = new CopyHandlers(store);
        this.acls = new Acls(store);
    }

    @PreDestroy
    void stop() {
        if (authenticator != null) {
            authenticator.close();
        }
    }

    void register(@Observes Router router) {
        if (authenticator != null) {
            router.routeWithRegex(S3_PATHS).handler(this::authenticate);
        }
        router.routeWithRegex(HttpMethod.PUT, S3_PATHS).handler(this::put);
        // POST bodies (DeleteObjects, CompleteMultipartUpload) are small XML documents: buffer them, bounded
        router.routeWithRegex(HttpMethod.POST, S3_PATHS).handler(BodyHandler.create(false)
                .setBodyLimit(DeleteObjectsHandler.MAX_BODY_BYTES));
        router.routeWithRegex(S3_PATHS).handler(this::route);
    }

    /** Object reads on the event loop (but for long checked reads); the rest on a worker. */
    private void route(RoutingContext ctx) {
        HttpMethod method = ctx.request().method();
        if (method == HttpMethod.GET || method == HttpMethod.HEAD) {
            S3Path path = begin(ctx);
            if (path == null) {
                return;
            }
            S3Operation op = label(ctx, path);
            if (op == S3Operation.GET_OBJECT || op == S3Operation.HEAD_OBJECT) {
                try {
                    operation(ctx, path);
                    if (reads.getObject(ctx, path, op == S3Operation.HEAD_OBJECT,
                            true) == ReadHandlers.Outcome.SERVED) {
                        return;
                    }
                } catch (Exception e) {
                    S3Errors.send(ctx, e, path.resource());
                    return;
                }
                ctx.vertx().executeBlocking(() -> reads.getObject(ctx, path, false, false), false)
                        .onFailure(e -> S3Errors.send(ctx, e, path.resource()));
                return;
            }
        }
        ctx.vertx().executeBlocking(() -> {
            dispatch(ctx);
            return null;
        }, false).onFailure(e -> S3Errors.send(ctx, e, ctx.request().path()));
    }

    private void authenticate(RoutingContext ctx) {
        S3Path path = begin(ctx);
        if (path == null) {
            return;
        }
        label(ctx, path);
        try {
            authenticator.authenticate(ctx);
        } catch (RuntimeException e) {
            S3Errors.send(ctx, e, path.resource());
            return;
        }
        ctx.next();
    }

    private void put(RoutingContext ctx) {
        S3Path path = begin(ctx);
        if (path == null) {
            return;
        }
        try {
            S3Operation op = operation(ctx, path);
            if (path.key() == null || op == S3Operation.COPY_OBJECT || op == S3Operation.UPLOAD_PART_COPY
                    || op == S3Operation.PUT_ACL) {
                // bucket creation, copies and ACLs carry no body to stream: a worker serves them
                ctx.next();
                return;
            }
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
            SigningContext signing = Authenticator.signing(ctx);
            if (signing != null && ctx.body().available()) {
                signing.verifyBody(ctx.body().buffer() == null ? new byte[0] : ctx.body().buffer().getBytes());
            }
            switch (operation(ctx, path)) {
                case LIST_BUCKETS -> listings.listBuckets(ctx);
                case LIST_OBJECTS -> listings.listObjects(ctx, path);
                case LIST_OBJECT_VERSIONS -> listings.listObjectVersions(ctx, path);
                case GET_BUCKET_VERSIONING -> listings.bucketVersioning(ctx, path);
                case GET_BUCKET_LOCATION -> listings.bucketLocation(ctx, path);
                case LIST_MULTIPART_UPLOADS -> listings.listMultipartUploads(ctx, path);
                case HEAD_BUCKET -> reads.headBucket(ctx, path);
                case CREATE_BUCKET -> reads.createBucket(ctx, path);
                case DELETE_BUCKET -> reads.deleteBucket(ctx, path);
                case DELETE_OBJECTS -> batchDeletes.handle(ctx, path);
                case GET_OBJECT -> reads.getObject(ctx, path, false, false);
                case HEAD_OBJECT -> reads.getObject(ctx, path, true, false);
                case DELETE_OBJECT -> reads.deleteObject(ctx, path);
                case CREATE_MULTIPART_UPLOAD -> multipart.create(ctx, path);
                case COMPLETE_MULTIPART_UPLOAD -> multipart.complete(ctx, path);
                case ABORT_MULTIPART_UPLOAD -> multipart.abort(ctx, path);
                case LIST_PARTS -> multipart.listParts(ctx, path);
                case COPY_OBJECT -> copies.copyObject(ctx, path);
                case UPLOAD_PART_COPY -> copies.uploadPartCopy(ctx, path);
                case GET_ACL -> acls.get(ctx, path);
                case PUT_ACL -> acls.put(ctx, path);
                default -> throw new S3Exception(S3ErrorCode.INVALID_ARGUMENT,
                        "Method " + ctx.request().method() + " is not supported on " + path.resource() + ".");
            }
        } catch (Exception e) {
            S3Errors.send(ctx, e, path.resource());
        }
    }

    /**
     * The operation of this request, remembered for the metrics recorded when the response ends; {@code 501
     * NotImplemented} (or {@code 400} for a version id) when the request names a subresource or carries a header
     * the node does not serve ({@link Unimplemented}), so no handler ever runs for it.
     */
    private static S3Operation operation(RoutingContext ctx, S3Path path) {
        S3Operation op = label(ctx, path);
        Unimplemented.check(op, ctx.request().method(), path, ctx.request().params(), ctx.request().headers());
        return op;
    }

    /** The operation of this request, remembered for the metrics (authentication runs before anything is refused). */
    private static S3Operation label(RoutingContext ctx, S3Path path) {
        S3Operation op = S3Operation.of(ctx.request().method(), path, ctx.request().params(),
                ctx.request().headers());
        ctx.put(OPERATION, op);
        return op;
    }

    /**
     * The request's path, parsed once per request whichever route comes first (auth, PUT, reads, dispatch), which
     * also stamps the request id and starts the metrics clock; on a bad path answers the error and returns null.
     */
    private S3Path begin(RoutingContext ctx) {
        S3Path parsed = ctx.get(PATH);
        if (parsed != null) {
            return parsed;
        }
        ctx.response().putHeader(S3Headers.REQUEST_ID, S3Headers.newRequestId());
        long start = System.nanoTime();
        ctx.addEndHandler(ended -> metrics.record(ctx.get(OPERATION, S3Operation.UNSUPPORTED),
                ctx.response().getStatusCode(), System.nanoTime() - start, ctx.request().bytesRead(),
                ctx.response().bytesWritten()));
        try {
            parsed = S3Path.of(ctx.request().path(), virtualHosts.bucket(ctx.request().getHeader("Host")));
        } catch (S3Exception e) {
            S3Errors.send(ctx, e, ctx.request().path());
            return null;
        }
        ctx.put(PATH, parsed);
        return parsed;
    }
}
