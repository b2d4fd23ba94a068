package dev.tollgate.gateway;

import com.nimbusds.jose.JOSEException;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.crypto.MACSigner;
import com.nimbusds.jose.crypto.RSASSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jose.jwk.gen.RSAKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Map;

/**
 * A token issuer for tests: an RSA and an EC P-256 key, their public JWK set served on 127.0.0.1, and
 * tokens signed with either (or with a key the set does not hold).
 */
final class TokenIssuer implements AutoCloseable {

    public static final String ISSUER = "https://issuer.test";

    private final RSAKey rsa;
    private final ECKey ec;
    private final RSAKey stranger;
    private final HttpServer server;

    public TokenIssuer() {
        try {
            rsa = new RSAKeyGenerator(2048).keyID("rsa-1").generate();
            ec = new ECKeyGenerator(Curve.P_256).keyID("ec-1").generate();
            stranger = new RSAKeyGenerator(2048).keyID("rsa-1").generate(); // same key id, other key
            byte[] jwks = new JWKSet(List.of(rsa.toPublicJWK(), ec.toPublicJWK())).toString(true)
                    .getBytes(StandardCharsets.UTF_8);
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            server.createContext("/jwks", exchange -> {
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, jwks.length);
                try (OutputStream out = exchange.getResponseBody()) {
                    out.write(jwks);
                }
            });
            server.start();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public String jwkSetUri() {
        return "http://127.0.0.1:" + server.getAddress().getPort() + "/jwks";
    }

    /** Claims valid for ten minutes from now, from {@link #ISSUER}, with {@code extra}. */
    public static JWTClaimsSet.Builder claims(Map<String, Object> extra) {
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .subject("user-1")
                .issueTime(Date.from(Instant.now()))
                .expirationTime(Date.from(Instant.now().plusSeconds(600)));
        extra.forEach(claims::claim);
        return claims;
    }

    public String rs256(JWTClaimsSet claims) {
        return sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(rsa.getKeyID()).build(), claims, rsa, null);
    }

    public String es256(JWTClaimsSet claims) {
        return sign(new JWSHeader.Builder(JWSAlgorithm.ES256).keyID(ec.getKeyID()).build(), claims, null, ec);
    }

    /** Signed by a key the JWK set does not hold, under the key id of one it does. */
    public String forged(JWTClaimsSet claims) {
        return sign(new JWSHeader.Builder(JWSAlgorithm.RS256).keyID(stranger.getKeyID()).build(), claims, stranger, null);
    }

    /** HS256 with a secret: an algorithm no verifier of ours accepts. */
    public static String hs256(JWTClaimsSet claims) {
        try {
            SignedJWT jwt = new SignedJWT(new JWSHeader(JWSAlgorithm.HS256), claims);
            jwt.sign(new MACSigner("0123456789abcdef0123456789abcdef"));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String sign(JWSHeader header, JWTClaimsSet claims, RSAKey rsaKey, ECKey ecKey) {
        try {
            SignedJWT jwt = new SignedJWT(header, claims);
            jwt.sign(rsaKey != null ? new RSASSASigner(rsaKey) : new ECDSASigner(ecKey));
            return jwt.serialize();
        } catch (JOSEException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
