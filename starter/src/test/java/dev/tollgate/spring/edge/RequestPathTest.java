package dev.tollgate.spring.edge;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
            // RFC 3986 §5.2.4's own examples, rooted
            "/a/b/c/./../../g,       /a/g",
            "/mid/content=5/../6,    /mid/6",
            // dot-segments
            "/catalog/../orders,     /orders",
            "/catalog/./orders,      /catalog/orders",
            "/catalog/x/y/../../z,   /catalog/z",
            "/a/b/..,                /a/",
            "/a/b/.,                 /a/b/",
            "/.,                     /",
            "/a/..,                  /",
            // empty segments merge, before dot-segments are resolved (as Tomcat and nginx read them)
            "//orders,               /orders",
            "/catalog//../orders,    /orders",
            "/a///b//,               /a/b/",
            "///,                    /",
            // encodings are kept as sent
            "/a/%2e%2e%41/../b,      /a/b",
    })
    void normalises(String sent, String canonical) {
        assertThat(RequestPath.canonical(sent)).isEqualTo(new RequestPath.Canonical(canonical, true));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "", "/", "/orders", "/orders/", "/catalog/items/42", "/a.b/..c/c../.../.x", "/%41%42", "/a%2eb",
            "/100%25", "/caf%C3%A9", "/a%zz", "/a%", "/a%2", "/~user/_x-y", "/a:b@c!$&'()*+,=",
    })
    void leavesCanonicalPathsAlone(String sent) {
        assertThat(RequestPath.canonical(sent)).isEqualTo(new RequestPath.Canonical(sent, false));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "*", "orders", "/..", "/../orders", "/a/../../b", "/a/b/../../..",
            "/%2e", "/%2e%2e", "/.%2e/x", "/%2E./x", "/a/%2e%2e", "/a/%252e%252e/b", "/a/%25252e/b",
            "/a%2fb", "/a%2Fb", "/a%252fb", "/a%5cb", "/a%5Cb", "/a\\b",
            "/a;b", "/a/..;/b", "/a/;/b", "/a%3bb", "/a%253Bb",
            "/a b", "/a\tb", "/a\u00e9", "/a%00", "/a%0d%0a", "/a%7f", "/a%1F",
            "/%c0%ae%c0%ae/x", "/a%ff", "/a%C3",
    })
    void refusesWhatHasNoSafeMeaning(String sent) {
        assertThat(RequestPath.canonical(sent)).isInstanceOf(RequestPath.Refused.class);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/a/./b//c/../d/", "//x/%41/./y", "/a/b/c/../../.."})
    void aCanonicalPathIsItsOwnCanonicalForm(String sent) {
        String once = ((RequestPath.Canonical) RequestPath.canonical(sent)).path();
        assertThat(RequestPath.canonical(once)).isEqualTo(new RequestPath.Canonical(once, false));
    }
}
