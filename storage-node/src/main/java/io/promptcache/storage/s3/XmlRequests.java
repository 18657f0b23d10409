package io.promptcache.storage.s3;

import java.io.ByteArrayInputStream;
import java.util.ArrayList;
import java.util.List;

import javax.xml.XMLConstants;
import javax.xml.parsers.DocumentBuilder;
import javax.xml.parsers.DocumentBuilderFactory;

import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

import io.promptcache.storage.error.S3ErrorCode;
import io.promptcache.storage.error.S3Exception;

/** Reads the XML request bodies of the S3 API with DTDs and external entities disabled. */
final class XmlRequests {

    private XmlRequests() {
    }

    /** The root element, which must be {@code rootName}; {@code MalformedXML} otherwise. */
    static Element parse(byte[] xml, String rootName) {
        Element root;
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature(XMLConstants.FEATURE_SECURE_PROCESSING, true);
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            factory.setExpandEntityReferences(false);
            DocumentBuilder builder = factory.newDocumentBuilder();
            builder.setErrorHandler(null);
            root = builder.parse(new ByteArrayInputStream(xml)).getDocumentElement();
        } catch (Exception e) {
            throw malformed("the body is not well-formed XML");
        }
        if (!rootName.equals(root.getTagName())) {
            throw malformed("the root element must be <" + rootName + ">");
        }
        return root;
    }

    /** The direct children of {@code parent} named {@code name}. */
    static List<Element> children(Element parent, String name) {
        List<Element> out = new ArrayList<>();
        NodeList nodes = parent.getChildNodes();
        for (int i = 0; i < nodes.getLength(); i++) {
            Node node = nodes.item(i);
            if (node instanceof Element e && e.getTagName().equals(name)) {
                out.add(e);
            }
        }
        return out;
    }

    /** The text of the one child named {@code name}; {@code MalformedXML} if it is missing or repeated. */
    static String childText(Element parent, String name) {
        List<Element> found = children(parent, name);
        if (found.size() != 1) {
            throw malformed("every <" + parent.getTagName() + "> needs exactly one <" + name + ">");
        }
        return found.get(0).getTextContent();
    }

    /** The text of {@code parent}'s one child {@code name}, or null when it has none (more than one is malformed). */
    static String childTextOrNull(Element parent, String name) {
        List<Element> found = children(parent, name);
        if (found.size() > 1) {
            throw malformed("a <" + parent.getTagName() + "> takes at most one <" + name + ">");
        }
        return found.isEmpty() ? null : found.get(0).getTextContent();
    }

    static S3Exception malformed(String why) {
        return new S3Exception(S3ErrorCode.MALFORMED_XML, S3ErrorCode.MALFORMED_XML.message() + " (" + why + ")");
    }
}
