//! Table-driven parsing tests: every form from the seed text (Dubbo's "URL 统一模型") and from
//! Java Dubbo's own `URLTest` / `URLStrParserTest`, with the expected parts.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use dubbo_url::{encode, Url};

struct Case {
    input: &'static str,
    protocol: Option<&'static str>,
    username: Option<&'static str>,
    password: Option<&'static str>,
    host: Option<&'static str>,
    port: u16,
    path: Option<&'static str>,
    params: &'static [(&'static str, &'static str)],
}

const fn case(input: &'static str) -> Case {
    Case {
        input,
        protocol: None,
        username: None,
        password: None,
        host: None,
        port: 0,
        path: None,
        params: &[],
    }
}

impl Case {
    const fn protocol(mut self, p: &'static str) -> Self {
        self.protocol = Some(p);
        self
    }
    const fn user(mut self, u: &'static str) -> Self {
        self.username = Some(u);
        self
    }
    const fn pass(mut self, p: &'static str) -> Self {
        self.password = Some(p);
        self
    }
    const fn host(mut self, h: &'static str) -> Self {
        self.host = Some(h);
        self
    }
    const fn port(mut self, p: u16) -> Self {
        self.port = p;
        self
    }
    const fn path(mut self, p: &'static str) -> Self {
        self.path = Some(p);
        self
    }
    const fn params(mut self, p: &'static [(&'static str, &'static str)]) -> Self {
        self.params = p;
        self
    }
}

const ZK_REGISTRY: &str = "zookeeper://127.0.0.1:2181/org.apache.dubbo.registry.RegistryService?application=demo-consumer&dubbo=2.0.2&interface=org.apache.dubbo.registry.RegistryService&pid=1214&qos.port=33333&timestamp=1545721981946";
const CONSUMER: &str = "consumer://30.5.120.217/org.apache.dubbo.demo.DemoService?application=demo-consumer&category=consumers&check=false&dubbo=2.0.2&interface=org.apache.dubbo.demo.DemoService&methods=sayHello&pid=1209&qos.port=33333&side=consumer&timestamp=1545721827784";
const JAVA_PARSER_CASE: &str = "dubbo://admin:admin123@192.168.1.41:28113/org.test.api.DemoService$Iface?anyhost=true&application=demo-service&dubbo=2.6.1&generic=false&interface=org.test.api.DemoService$Iface&methods=orbCompare,checkText,checkPicture&pid=65557&revision=1.4.17&service.filter=bootMetrics&side=provider&status=server&threads=200&timestamp=1583136298859&version=1.0.0";

fn cases() -> Vec<Case> {
    vec![
        // ---- the seed's standard examples
        case("http://www.facebook.com/friends?param1=value1&param2=value2")
            .protocol("http")
            .host("www.facebook.com")
            .path("friends")
            .params(&[("param1", "value1"), ("param2", "value2")]),
        case("https://username:password@10.20.130.230:8080/list?version=1.0.0")
            .protocol("https")
            .user("username")
            .pass("password")
            .host("10.20.130.230")
            .port(8080)
            .path("list")
            .params(&[("version", "1.0.0")]),
        case("ftp://username:password@192.168.1.7:21/1/read.txt")
            .protocol("ftp")
            .user("username")
            .pass("password")
            .host("192.168.1.7")
            .port(21)
            .path("1/read.txt"),
        // ---- the seed's unusual forms
        case("192.168.1.3:20880").host("192.168.1.3").port(20880),
        case("file:///home/user1/router.js?type=script")
            .protocol("file")
            .path("home/user1/router.js")
            .params(&[("type", "script")]),
        case("file://home/user1/router.js?type=script")
            .protocol("file")
            .host("home")
            .path("user1/router.js")
            .params(&[("type", "script")]),
        case("file://home/user1/router.js")
            .protocol("file")
            .host("home")
            .path("user1/router.js"),
        case("file:///D:/1/router.js?type=script")
            .protocol("file")
            .path("D:/1/router.js")
            .params(&[("type", "script")]),
        case("file:/D:/1/router.js?type=script")
            .protocol("file")
            .path("D:/1/router.js")
            .params(&[("type", "script")]),
        case("/home/user1/router.js?type=script")
            .path("home/user1/router.js")
            .params(&[("type", "script")]),
        case("home/user1/router.js?type=script")
            .host("home")
            .path("user1/router.js")
            .params(&[("type", "script")]),
        // ---- the seed's Dubbo examples
        case("dubbo://192.168.1.6:20880/moe.cnkirito.sample.HelloService?timeout=3000")
            .protocol("dubbo")
            .host("192.168.1.6")
            .port(20880)
            .path("moe.cnkirito.sample.HelloService")
            .params(&[("timeout", "3000")]),
        case(ZK_REGISTRY)
            .protocol("zookeeper")
            .host("127.0.0.1")
            .port(2181)
            .path("org.apache.dubbo.registry.RegistryService")
            .params(&[
                ("application", "demo-consumer"),
                ("dubbo", "2.0.2"),
                ("interface", "org.apache.dubbo.registry.RegistryService"),
                ("pid", "1214"),
                ("qos.port", "33333"),
                ("timestamp", "1545721981946"),
            ]),
        case(CONSUMER)
            .protocol("consumer")
            .host("30.5.120.217")
            .path("org.apache.dubbo.demo.DemoService")
            .params(&[
                ("application", "demo-consumer"),
                ("category", "consumers"),
                ("check", "false"),
                ("dubbo", "2.0.2"),
                ("interface", "org.apache.dubbo.demo.DemoService"),
                ("methods", "sayHello"),
                ("pid", "1209"),
                ("qos.port", "33333"),
                ("side", "consumer"),
                ("timestamp", "1545721827784"),
            ]),
        case("registry://192.168.1.7:9090/org.apache.dubbo.service1?param1=value1&param2=value2")
            .protocol("registry")
            .host("192.168.1.7")
            .port(9090)
            .path("org.apache.dubbo.service1")
            .params(&[("param1", "value1"), ("param2", "value2")]),
        // ---- Java URLTest
        case("10.20.130.230").host("10.20.130.230"),
        case("10.20.130.230/context/path").host("10.20.130.230").path("context/path"),
        case("10.20.130.230:20880/context/path")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path"),
        case("/context/path?version=1.0.0&application=morgan")
            .path("context/path")
            .params(&[("application", "morgan"), ("version", "1.0.0")]),
        case("context/path?version=1.0.0&application=morgan")
            .host("context")
            .path("path")
            .params(&[("application", "morgan"), ("version", "1.0.0")]),
        case("admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan")
            .user("admin")
            .pass("hello1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[("application", "morgan"), ("version", "1.0.0")]),
        case("file:/home/user1/router.js?p1=v1&p2=v2")
            .protocol("file")
            .path("home/user1/router.js")
            .params(&[("p1", "v1"), ("p2", "v2")]),
        case("file:///d:/home/user1/router.js").protocol("file").path("d:/home/user1/router.js"),
        case("dubbo://10.20.130.230").protocol("dubbo").host("10.20.130.230"),
        case("dubbo://admin:hello1234@10.20.130.230:20880")
            .protocol("dubbo")
            .user("admin")
            .pass("hello1234")
            .host("10.20.130.230")
            .port(20880),
        case("dubbo://admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan&noValue=")
            .protocol("dubbo")
            .user("admin")
            .pass("hello1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[("application", "morgan"), ("noValue", ""), ("version", "1.0.0")]),
        case("dubbo://admin:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan&noValue")
            .protocol("dubbo")
            .user("admin")
            .pass("hello1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[("application", "morgan"), ("noValue", ""), ("version", "1.0.0")]),
        case("http://1.2.3.4:8080/path?key=value1 value2")
            .protocol("http")
            .host("1.2.3.4")
            .port(8080)
            .path("path")
            .params(&[("key", "value1 value2")]),
        case("http://1.2.3.4:8080/path?k0=&k1=v1")
            .protocol("http")
            .host("1.2.3.4")
            .port(8080)
            .path("path")
            .params(&[("k0", ""), ("k1", "v1")]),
        case("ad@min:hello@1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan")
            .user("ad@min")
            .pass("hello@1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[("application", "morgan"), ("version", "1.0.0")]),
        case("dubbo://ad@min:hello@1234@10.20.130.230:20880/context/path?version=1.0.0&application=morgan&pound=abcd#efg&protocol=registry")
            .protocol("dubbo")
            .user("ad@min")
            .pass("hello@1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[
                ("application", "morgan"),
                ("pound", "abcd#efg"),
                ("protocol", "registry"),
                ("version", "1.0.0"),
            ]),
        // Password without user name: accepted by Java 3.3's parser (testGetAuthority).
        case(":hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=app1")
            .user("")
            .pass("hello1234")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path")
            .params(&[("application", "app1"), ("version", "1.0.0")]),
        case("admin1:@10.20.130.230:20880/context/path")
            .user("admin1")
            .pass("")
            .host("10.20.130.230")
            .port(20880)
            .path("context/path"),
        case("dubbo://1234@host:1").protocol("dubbo").user("1234").host("host").port(1),
        case("dubbo://[2408:4004:194:8896:3e8a:82ae:814a:398]:20881?name=apache")
            .protocol("dubbo")
            .host("[2408:4004:194:8896:3e8a:82ae:814a:398]")
            .port(20881)
            .params(&[("name", "apache")]),
        case("dubbo://[::1]:20880/org.Foo")
            .protocol("dubbo")
            .host("[::1]")
            .port(20880)
            .path("org.Foo"),
        case("dubbo://0.0.0.0:20880").protocol("dubbo").host("0.0.0.0").port(20880),
        case("dubbo://127.0.0.1:12345?timeout=1234&default.timeout=5678")
            .protocol("dubbo")
            .host("127.0.0.1")
            .port(12345)
            .params(&[("default.timeout", "5678"), ("timeout", "1234")]),
        case("dubbo://127.0.0.1:12345?default.timeout=5678")
            .protocol("dubbo")
            .host("127.0.0.1")
            .port(12345)
            .params(&[("default.timeout", "5678"), ("timeout", "5678")]),
        // ---- Java URLStrParserTest
        case("dubbo://192.168.1.1").protocol("dubbo").host("192.168.1.1"),
        case("dubbo://192.168.1.1?").protocol("dubbo").host("192.168.1.1"),
        case("dubbo://127.0.0.1?test=中文测试")
            .protocol("dubbo")
            .host("127.0.0.1")
            .params(&[("test", "中文测试")]),
        case(JAVA_PARSER_CASE)
            .protocol("dubbo")
            .user("admin")
            .pass("admin123")
            .host("192.168.1.41")
            .port(28113)
            .path("org.test.api.DemoService$Iface")
            .params(&[
                ("anyhost", "true"),
                ("application", "demo-service"),
                ("dubbo", "2.6.1"),
                ("generic", "false"),
                ("interface", "org.test.api.DemoService$Iface"),
                ("methods", "orbCompare,checkText,checkPicture"),
                ("pid", "65557"),
                ("revision", "1.4.17"),
                ("service.filter", "bootMetrics"),
                ("side", "provider"),
                ("status", "server"),
                ("threads", "200"),
                ("timestamp", "1583136298859"),
                ("version", "1.0.0"),
            ]),
        case("file:/path/to/file.txt").protocol("file").path("path/to/file.txt"),
        case("dubbo://fe80:0:0:0:894:aeec:f37d:23e1%en0/path?abc=abc")
            .protocol("dubbo")
            .host("fe80:0:0:0:894:aeec:f37d:23e1%en0")
            .path("path")
            .params(&[("abc", "abc")]),
        case("dubbo://[fe80:0:0:0:894:aeec:f37d:23e1]:20880/path?abc=abc")
            .protocol("dubbo")
            .host("[fe80:0:0:0:894:aeec:f37d:23e1]")
            .port(20880)
            .path("path")
            .params(&[("abc", "abc")]),
        case("nacos://192.168.1.1:8848?username=&password=")
            .protocol("nacos")
            .host("192.168.1.1")
            .port(8848)
            .params(&[("password", ""), ("username", "")]),
        case("https://a#@b").protocol("https").host("a"),
        // ---- fragments, multiple hosts, odd corners
        case("dubbo://h:1/p#frag?x=y")
            .protocol("dubbo")
            .host("h")
            .port(1)
            .path("p")
            .params(&[("x", "y")]),
        case("dubbo://h:1/p?x=y#frag")
            .protocol("dubbo")
            .host("h")
            .port(1)
            .path("p")
            .params(&[("x", "y#frag")]),
        case("dubbo://h:1#frag").protocol("dubbo").host("h").port(1),
        case("zookeeper://a:1,b:2").protocol("zookeeper").host("a:1,b").port(2),
        case("zookeeper://10.0.0.1:2181?backup=10.0.0.2:2181,10.0.0.3:2181")
            .protocol("zookeeper")
            .host("10.0.0.1")
            .port(2181)
            .params(&[("backup", "10.0.0.2:2181,10.0.0.3:2181")]),
        case("dubbo://host:-1").protocol("dubbo").host("host"),
        case("dubbo://host:+20880").protocol("dubbo").host("host").port(20880),
        case("dubbo://host:0").protocol("dubbo").host("host"),
        case("dubbo://host:").protocol("dubbo").host("host:"),
        case("dubbo://host/").protocol("dubbo").host("host").path(""),
        case("dubbo:///org.Foo").protocol("dubbo").path("org.Foo"),
        case("file:////x").protocol("file").path("x"),
        case("dubbo://:20880").protocol("dubbo").port(20880),
        case(":20880").host(":20880"),
        case("dubbo://@host").protocol("dubbo").user("").host("host"),
        case("@host").host("@host"),
        case(""),
        case("?a=1").params(&[("a", "1")]),
        case("dubbo://h/p?a=1;b=2&c=3")
            .protocol("dubbo")
            .host("h")
            .path("p")
            .params(&[("a", "1"), ("b", "2"), ("c", "3")]),
        case("dubbo://h/p?==a&b=&c")
            .protocol("dubbo")
            .host("h")
            .path("p")
            .params(&[("a", ""), ("b", ""), ("c", "")]),
        case("dubbo://h/p?a=b=c&&x")
            .protocol("dubbo")
            .host("h")
            .path("p")
            .params(&[("a", "b=c"), ("x", "")]),
        case("dubbo://h/p?a=1&a=2").protocol("dubbo").host("h").path("p").params(&[("a", "2")]),
        case("dubbo://h/p?a=%41+b")
            .protocol("dubbo")
            .host("h")
            .path("p")
            .params(&[("a", "%41+b")]),
        case("a#b://c").protocol("a#b"),
    ]
}

fn check(c: &Case, url: &Url, how: &str) {
    let ctx = format!("{how} {:?}", c.input);
    assert_eq!(url.protocol(), c.protocol, "protocol of {ctx}");
    assert_eq!(url.username(), c.username, "username of {ctx}");
    assert_eq!(url.password(), c.password, "password of {ctx}");
    assert_eq!(url.host(), c.host, "host of {ctx}");
    assert_eq!(url.port(), c.port, "port of {ctx}");
    assert_eq!(url.path(), c.path, "path of {ctx}");
    let got: Vec<(&str, &str)> = url.params().iter().collect();
    let mut want = c.params.to_vec();
    want.sort();
    assert_eq!(got, want, "params of {ctx}");
}

#[test]
fn every_form_parses_as_java_does() {
    for c in cases() {
        let url = Url::parse(c.input).unwrap_or_else(|e| panic!("{:?} failed: {e}", c.input));
        check(&c, &url, "parse");
    }
}

#[test]
fn encoded_full_string_parses_back_to_the_same_url() {
    // Java URLTest.assertURLStrDecoder, applied to every form.
    for c in cases() {
        let url = Url::parse(c.input).unwrap_or_else(|e| panic!("{:?} failed: {e}", c.input));
        let full = url.to_full_string();
        let decoded = Url::parse(&full).unwrap_or_else(|e| panic!("{full:?} failed: {e}"));
        let encoded = Url::parse_encoded(&encode(&full))
            .unwrap_or_else(|e| panic!("encoded {full:?} failed: {e}"));
        assert_eq!(encoded, decoded, "encoded vs decoded for {:?}", c.input);
    }
}

#[test]
fn java_parser_test_cases_agree_encoded_and_decoded() {
    // URLStrParserTest.testEncoded: parseEncodedStr(encode(s)) equals valueOf(s).
    let long = format!("dubbo://192.168.1.1/{}", "x".repeat(10240));
    let inputs = [
        "dubbo://192.168.1.1",
        "dubbo://192.168.1.1?",
        "dubbo://127.0.0.1?test=中文测试",
        JAVA_PARSER_CASE,
        long.as_str(),
        "file:/path/to/file.txt",
        "dubbo://fe80:0:0:0:894:aeec:f37d:23e1%en0/path?abc=abc",
        "dubbo://[fe80:0:0:0:894:aeec:f37d:23e1]:20880/path?abc=abc",
        "nacos://192.168.1.1:8848?username=&password=",
        "dubbo://127.0.0.1?timeout=1234&default.timeout=5678",
        "dubbo://127.0.0.1?default.timeout=5678",
    ];
    for s in inputs {
        let decoded = Url::parse(s).unwrap();
        let encoded = Url::parse_encoded(&encode(s)).unwrap();
        assert_eq!(encoded, decoded, "{s:?}");
    }
    // Lower-case escapes are accepted too.
    let url = Url::parse_encoded("dubbo%3a%2f%2f192.168.1.41%3fabc%3dabc").unwrap();
    assert_eq!(url.host(), Some("192.168.1.41"));
    assert_eq!(url.parameter("abc"), Some("abc"));
}

#[test]
fn errors_match_java_failures() {
    let decoded: &[(&str, &str)] = &[
        ("://1.2.3.4:8080/path", "url.missing_protocol"),
        (":/192.168.1.1", "url.missing_protocol"),
        ("dubbo:192.168.1.1", "url.invalid_port"),
        ("dubbo://host:/path", "url.invalid_port"),
        ("dubbo://host:#x", "url.invalid_port"),
        ("dubbo://[::1]", "url.invalid_port"),
        ("dubbo://h:abc", "url.invalid_port"),
        ("dubbo://h:2147483648", "url.invalid_port"),
        ("dubbo://h:99999", "url.port_out_of_range"),
        ("dubbo://h:65536/p", "url.port_out_of_range"),
    ];
    for (input, code) in decoded {
        let err = Url::parse(input).expect_err(input);
        assert_eq!(err.code(), *code, "{input:?}: {err}");
        assert!(!err.to_string().is_empty());
    }
    assert_eq!(
        Url::parse("://1.2.3.4:8080/path").unwrap_err().to_string(),
        "url missing protocol: \"://1.2.3.4:8080/path\""
    );

    // URLStrParserTest.errorEncodedCases
    let encoded: &[(&str, &str)] = &[
        ("dubbo%3a%2f%2f192.168.1.41%3fabc%3", "url.unterminated_escape"),
        ("dubbo%3a192.168.1.1%3fabc%3dabc", "url.invalid_port"),
        ("%3a%2f%2f192.168.1.1%3fabc%3dabc", "url.missing_protocol"),
        ("%3a%2f192.168.1.1%3fabc%3dabc", "url.missing_protocol"),
        (
            "dubbo%3a%2f%2f127.0.0.1%3ftest%3d%e2%96%b2%e2%96%bc%e2%97%80%e2%96%b6%e2%86%90%e2%86%91%e2%86%92%e2%86%93%e2%86%94%e2%86%95%e2%88%9e%c2%b1%e9%be%98%e9%9d%90%e9%bd%89%9%d%b",
            "url.invalid_escape",
        ),
        ("dubbo%3A%2F%2Fh%3Fa%3D%FF", "url.invalid_utf8"),
        ("dubbo%3A%2F%2Fh%FF%3Fa%3D1", "url.invalid_utf8"),
        ("dubbo%3A%2F%2Fh%3", "url.unterminated_escape"),
    ];
    for (input, code) in encoded {
        let err = Url::parse_encoded(input).expect_err(input);
        assert_eq!(err.code(), *code, "{input:?}: {err}");
    }
}

#[test]
fn java_url_test_accessors() {
    let url = Url::parse("/context/path?version=1.0.0&application=morgan").unwrap();
    assert_eq!(url.address(), "");
    assert_eq!(url.version(), Some("1.0.0"));

    let url = Url::parse("10.20.130.230:20880").unwrap();
    assert_eq!(url.address(), "10.20.130.230:20880");

    let url = Url::parse("http://1.2.3.4:8080/path?k0=&k1=v1").unwrap();
    assert!(!url.has_parameter("k0"));
    assert_eq!(url.parameter("k0"), Some(""));
    assert_eq!(url.parameter_or("k0", "dflt"), "dflt");

    let url = Url::parse("dubbo://127.0.0.1:12345?timeout=1234&default.timeout=5678").unwrap();
    assert_eq!(url.parameter_u64("timeout").unwrap(), Some(1234));
    assert_eq!(url.parameter_u64("default.timeout").unwrap(), Some(5678));

    // testGetAuthority / testGetUserInformation
    let url = Url::parse(
        "admin1:hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=app1",
    )
    .unwrap();
    assert_eq!(
        url.authority().as_deref(),
        Some("admin1:hello1234@10.20.130.230:20880")
    );
    assert_eq!(url.user_information(), "admin1:hello1234");
    let url =
        Url::parse(":hello1234@10.20.130.230:20880/context/path?version=1.0.0&application=app1")
            .unwrap();
    assert_eq!(
        url.authority().as_deref(),
        Some(":hello1234@10.20.130.230:20880")
    );
    let url = Url::parse("admin1:@10.20.130.230:20880/context/path?version=1.0.0&application=app1")
        .unwrap();
    assert_eq!(
        url.authority().as_deref(),
        Some("admin1:@10.20.130.230:20880")
    );
    let url =
        Url::parse("10.20.130.230:20880/context/path?version=1.0.0&application=app1").unwrap();
    assert_eq!(url.authority().as_deref(), Some("10.20.130.230:20880"));
    let url =
        Url::parse("admin1:hello1234@10.20.130.230/context/path?version=1.0.0&application=app1")
            .unwrap();
    assert_eq!(
        url.authority().as_deref(),
        Some("admin1:hello1234@10.20.130.230")
    );
    assert_eq!(Url::parse("/p").unwrap().authority(), None);

    // test_Anyhost / test_Localhost
    assert!(Url::parse("dubbo://0.0.0.0:20880").unwrap().is_any_host());
    assert!(Url::parse("dubbo://h:1?anyhost=true")
        .unwrap()
        .is_any_host());
    assert!(Url::parse("dubbo://127.0.0.1:20880")
        .unwrap()
        .is_local_host());
    assert!(Url::parse("dubbo://127.0.1.1:20880")
        .unwrap()
        .is_local_host());
    assert!(Url::parse("dubbo://LOCALHOST:20880")
        .unwrap()
        .is_local_host());
    assert!(!Url::parse("dubbo://127.0.0:20880").unwrap().is_local_host());
    assert!(!Url::parse("dubbo://10.0.0.1:20880")
        .unwrap()
        .is_local_host());

    // test_getAbsolutePath
    assert_eq!(Url::parse("p1://1.2.2.2:33").unwrap().absolute_path(), None);
    assert_eq!(
        Url::parse("file://:90//home/user1/route.js")
            .unwrap()
            .absolute_path()
            .as_deref(),
        Some("/home/user1/route.js")
    );
}

#[test]
fn service_keys_follow_java() {
    // testGetServiceKey
    let u1 = Url::parse(
        "10.20.130.230:20880/context/path?interface=org.apache.dubbo.test.interfaceName",
    )
    .unwrap();
    assert_eq!(
        u1.service_key().as_deref(),
        Some("org.apache.dubbo.test.interfaceName")
    );
    let u3 = Url::parse("10.20.130.230:20880/org.apache.dubbo.test.interfaceName?interface=org.apache.dubbo.test.interfaceName&group=group1&version=1.0.0").unwrap();
    assert_eq!(
        u3.service_key().as_deref(),
        Some("group1/org.apache.dubbo.test.interfaceName:1.0.0")
    );
    assert_eq!(u1.path_key().as_deref(), Some("context/path"));
    let u5 = Url::parse("10.20.130.230:20880/context/path?interface=org.apache.dubbo.test.interfaceName&group=group1&version=1.0.0").unwrap();
    assert_eq!(u5.path_key().as_deref(), Some("group1/context/path:1.0.0"));
    assert_eq!(
        u5.display_service_key().as_deref(),
        Some("org.apache.dubbo.test.interfaceName:1.0.0")
    );
    assert_eq!(
        u5.protocol_service_key().as_deref(),
        Some("group1/org.apache.dubbo.test.interfaceName:1.0.0:null")
    );
    let consumer = Url::parse("consumer://h/org.Foo?group=g").unwrap();
    assert_eq!(
        consumer.protocol_service_key().as_deref(),
        Some("g/org.Foo")
    );
    let dubbo = Url::parse("dubbo://h:1/org.Foo?version=1").unwrap();
    assert_eq!(
        dubbo.protocol_service_key().as_deref(),
        Some("org.Foo:1:dubbo")
    );
    assert_eq!(Url::parse("dubbo://h:1").unwrap().service_key(), None);

    // Version 0.0.0 / * / "" as none, for matching.
    for (input, matching, plain) in [
        (
            "dubbo://h/org.Foo?version=0.0.0&group=g",
            "g/org.Foo",
            "g/org.Foo:0.0.0",
        ),
        ("dubbo://h/org.Foo?version=*", "org.Foo", "org.Foo:*"),
        ("dubbo://h/org.Foo?version=", "org.Foo", "org.Foo"),
        (
            "dubbo://h/org.Foo?version=1.0",
            "org.Foo:1.0",
            "org.Foo:1.0",
        ),
    ] {
        let url = Url::parse(input).unwrap();
        assert_eq!(
            url.service_key_for_matching().as_deref(),
            Some(matching),
            "{input}"
        );
        assert_eq!(url.service_key().as_deref(), Some(plain), "{input}");
    }

    // testGetColonSeparatedKey
    let base = "10.20.130.230:20880/context/path?interface=org.apache.dubbo.test.interfaceName";
    for (query, want) in [
        (
            "&group=group&version=1.0.0",
            "org.apache.dubbo.test.interfaceName:1.0.0:group",
        ),
        (
            "&version=1.0.0",
            "org.apache.dubbo.test.interfaceName:1.0.0:",
        ),
        ("&group=group", "org.apache.dubbo.test.interfaceName::group"),
        ("", "org.apache.dubbo.test.interfaceName::"),
        (
            "&group= &version=\t",
            "org.apache.dubbo.test.interfaceName::",
        ),
    ] {
        let url = Url::parse(&format!("{base}{query}")).unwrap();
        assert_eq!(url.colon_separated_key(), want, "{query}");
    }
    let u5 = Url::parse("10.20.130.230:20880/org.apache.dubbo.test.interfaceName").unwrap();
    assert_eq!(
        u5.colon_separated_key(),
        "org.apache.dubbo.test.interfaceName::"
    );
    let u6 = Url::parse("10.20.130.230:20880/org.apache.dubbo.test.interfaceName?interface=org.apache.dubbo.test.interfaceName1").unwrap();
    assert_eq!(
        u6.colon_separated_key(),
        "org.apache.dubbo.test.interfaceName1::"
    );
    // A blank interface parameter falls back to the path (Java uses isEmpty here).
    let u7 = Url::parse("h/org.Foo?interface=").unwrap();
    assert_eq!(u7.service_interface(), Some("org.Foo"));
}

#[test]
fn seed_side_group_version_accessors() {
    let url = Url::parse(CONSUMER).unwrap();
    assert_eq!(url.side(), Some("consumer"));
    assert_eq!(url.application(), Some("demo-consumer"));
    assert_eq!(url.category(), Some("consumers"));
    assert_eq!(url.group(), None);
    assert_eq!(url.version(), None);
    assert_eq!(
        url.service_interface(),
        Some("org.apache.dubbo.demo.DemoService")
    );
    assert_eq!(url.parameter_bool("check"), Some(false));
    assert_eq!(url.parameter_list("methods"), ["sayHello"]);
    assert_eq!(url.parameter_i64("pid").unwrap(), Some(1209));
    assert_eq!(url.parameter_parse::<u16>("qos.port").unwrap(), Some(33333));
    assert_eq!(url.parameter_f64("pid").unwrap(), Some(1209.0));
    assert_eq!(url.parameter_u64("missing").unwrap(), None);
    let err = url.parameter_u64("application").unwrap_err();
    assert_eq!(err.code(), "url.invalid_parameter");
    assert!(url.parameter_f64("application").is_err());
}
