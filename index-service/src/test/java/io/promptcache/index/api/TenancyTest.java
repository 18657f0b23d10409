package io.promptcache.index.api;

import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.promptcache.index.lookup.CollisionReport;
import io.promptcache.schema.hash.HashAlgorithm;
import io.promptcache.schema.key.ObjectId;
import io.promptcache.schema.key.PrefixChain;
import io.promptcache.schema.namespace.NamespaceId;
import io.promptcache.schema.proto.PrefixEntry;
import io.promptcache.schema.serde.SchemaVersion;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.http.ContentType;
import io.restassured.specification.RequestSpecification;

import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.nullValue;

/** API keys bound to tenants: 401 without a valid key, 403 across tenants, and tenants never share an entry. */
@QuarkusTest
@TestProfile(TenancyTest.ApiKeys.class)
class TenancyTest extends NodeBackedTest {

    private static final Map<String, Object> FIELDS = Map.of("modelFingerprint", "shared-model@1", "dtype", "fp8",
            "blockSize", 16);

    @Inject
    CollisionReport collisions;

    private static RequestSpecification as(String key) {
        return given().header("Authorization", "Bearer " + key);
    }

    @Test
    void shouldRefuseRequestsWithoutAValidKey() {
        given().contentType(ContentType.JSON).body(FIELDS).post("/v1/namespaces").then().statusCode(401)
                .header("WWW-Authenticate", containsString("Bearer")).body("error", equalTo("MissingApiKey"));
        as("not-a-key").contentType(ContentType.JSON).body(FIELDS).post("/v1/namespaces").then().statusCode(401)
                .body("error", equalTo("InvalidApiKey"));
        given().header("X-Api-Key", "wrong").contentType(ContentType.JSON).body(Map.of("tokens", new int[16]))
                .post("/v1/namespaces/0123456789abcdef0123456789abcdef/lookup").then().statusCode(401);
    }

    @Test
    void shouldKeepTenantsApart() {
        String acme = as("acme-key-1").contentType(ContentType.JSON).body(FIELDS).post("/v1/namespaces").then()
                .statusCode(201).body("tenant", equalTo("acme")).extract().path("id");
        String globex = given().header("X-Api-Key", "globex-key").contentType(ContentType.JSON).body(FIELDS)
                .post("/v1/namespaces").then().statusCode(201).body("tenant", equalTo("globex")).extract().path("id");
        assertThat(globex).as("the tenant is part of the namespace id").isNotEqualTo(acme);

        int[] prompt = Api.tokens(4 * 16, 7);
        String objectId = as("acme-key-2").contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(prompt, 64, 0), new byte[256])).post("/v1/namespaces/" + acme + "/objects")
                .then().statusCode(201).extract().path("objectId");
        as("acme-key-1").contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + acme + "/lookup").then().statusCode(200).body("hit", equalTo(true));
        as("globex-key").contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + globex + "/lookup").then().statusCode(200).body("hit", equalTo(false));

        as("globex-key").contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + acme + "/lookup").then().statusCode(403).body("error", equalTo("Forbidden"));
        as("globex-key").contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(prompt, 64, 0), new byte[256])).post("/v1/namespaces/" + acme + "/objects")
                .then().statusCode(403);
        as("globex-key").get("/v1/namespaces/" + acme).then().statusCode(403);
        as("globex-key").contentType(ContentType.JSON).body(Map.of("modelFingerprint", "m", "dtype", "bf16",
                "blockSize", 16, "tenant", "acme")).post("/v1/namespaces").then().statusCode(403);
        as("globex-key").post("/v1/objects/" + objectId + "/invalidate").then().statusCode(403);
        as("globex-key").delete("/v1/objects/" + objectId).then().statusCode(403);
        as("globex-key").get("/v1/objects/" + objectId).then().statusCode(403);
        as("acme-key-2").delete("/v1/objects/" + objectId).then().statusCode(202);
    }

    @Test
    void shouldLetOnlyTheKeyThatStoredAnObjectDeleteIt() {
        // Given: an object stored with acme's second key (an engine's identity within the tenant)
        String acme = as("acme-key-1").contentType(ContentType.JSON).body(Map.of("modelFingerprint", "owned-model@1",
                "dtype", "fp8", "blockSize", 16)).post("/v1/namespaces").then().statusCode(201).extract().path("id");
        int[] prompt = Api.tokens(4 * 16, 8);
        String objectId = as("acme-key-2").contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(prompt, 64, 0), new byte[256])).post("/v1/namespaces/" + acme + "/objects")
                .then().statusCode(201).extract().path("objectId");
        // Then: the tenant's other key reads it but is not its owner: its delete is refused, nothing changes
        as("acme-key-1").delete("/v1/objects/" + objectId).then().statusCode(403).body("error", equalTo("NotOwner"))
                .body("message", containsString("acme/key-"));
        as("acme-key-1").contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + acme + "/lookup").then().statusCode(200).body("hit", equalTo(true));
        // the key that stored it deletes it
        as("acme-key-2").delete("/v1/objects/" + objectId).then().statusCode(202).body("state", equalTo("TOMBSTONED"));
        as("acme-key-1").contentType(ContentType.JSON).body(Map.of("tokens", prompt))
                .post("/v1/namespaces/" + acme + "/lookup").then().statusCode(200).body("hit", equalTo(false));
    }

    @Test
    void shouldLetEveryKeyOfANamedPrincipalDeleteWhatAnotherOfItsKeysStored() {
        // Given: an object stored with the old key of principal acme/engines (its keys: old and new, a rotation)
        String acme = as("acme-engines-old").contentType(ContentType.JSON).body(Map.of("modelFingerprint",
                "rotated-model@1", "dtype", "fp8", "blockSize", 16)).post("/v1/namespaces").then().statusCode(201)
                .extract().path("id");
        int[] prompt = Api.tokens(4 * 16, 9);
        String objectId = as("acme-engines-old").contentType(StoreResource.STORE_FRAMED)
                .body(Api.framed(Api.head(prompt, 64, 0), new byte[256])).post("/v1/namespaces/" + acme + "/objects")
                .then().statusCode(201).extract().path("objectId");
        // Then: a key of another principal of the tenant is not its owner
        as("acme-key-1").delete("/v1/objects/" + objectId).then().statusCode(403).body("error", equalTo("NotOwner"))
                .body("message", containsString("acme/engines"));
        // the principal's new key is
        as("acme-engines-new").delete("/v1/objects/" + objectId).then().statusCode(202)
                .body("state", equalTo("TOMBSTONED"));
    }

    @Test
    void shouldShowEachTenantOnlyTheCollisionsOfItsOwnNamespaces() {
        // Given: a quarantined key in a namespace of each tenant (reported as the lookup's collision guard does)
        String acme = as("acme-key-1").contentType(ContentType.JSON).body(Map.of("modelFingerprint", "collide@1",
                "dtype", "fp8", "blockSize", 16)).post("/v1/namespaces").then().statusCode(201).extract().path("id");
        String globex = as("globex-key").contentType(ContentType.JSON).body(Map.of("modelFingerprint", "collide@1",
                "dtype", "fp8", "blockSize", 16)).post("/v1/namespaces").then().statusCode(201).extract().path("id");
        PrefixEntry entry = PrefixEntry.newBuilder().setSchemaVersion(SchemaVersion.CURRENT)
                .setObjectId(ObjectId.generate().toString()).setBlocks(9).build();
        collisions.collision(PrefixChain.ofTokens(NamespaceId.parse(acme), HashAlgorithm.XXH3_128, 16,
                Api.tokens(16, 1)).key(1), 1, entry);
        collisions.collision(PrefixChain.ofTokens(NamespaceId.parse(globex), HashAlgorithm.XXH3_128, 16,
                Api.tokens(16, 2)).key(1), 1, entry);

        // Then: no key, no view; each tenant's key lists its own namespace's key only
        given().get("/v1/admin/collisions").then().statusCode(401).body("error", equalTo("MissingApiKey"));
        as("acme-key-2").get("/v1/admin/collisions").then().statusCode(200)
                .body("namespace", contains(acme)).body("storedBlocks", contains(9));
        as("globex-key").get("/v1/admin/collisions").then().statusCode(200).body("namespace", contains(globex));
    }

    @Test
    void shouldListTheStorageNodesAsThisReplicaJudgesThemToAnyKey() {
        given().get("/v1/admin/nodes").then().statusCode(401).body("error", equalTo("MissingApiKey"));
        as("globex-key").get("/v1/admin/nodes").then().statusCode(200).body("id", contains(node.nodeId()))
                .body("[0].endpoint", equalTo(node.endpoint())).body("[0].state", equalTo("UP"))
                .body("[0].serves", equalTo(true)).body("[0].takesWrites", equalTo(true))
                .body("[0].bucket", nullValue()).body("[0].heardMsAgo", greaterThanOrEqualTo(0));
    }

    public static class ApiKeys implements QuarkusTestProfile {

        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("promptcache.index.auth.mode", "api-key",
                    "promptcache.index.auth.tenants.acme.api-keys", "acme-key-1,acme-key-2",
                    "promptcache.index.auth.tenants.acme.principals.engines.api-keys",
                    "acme-engines-old,acme-engines-new",
                    "promptcache.index.auth.tenants.globex.api-keys", "globex-key");
        }
    }
}
