#!/bin/sh
# Builds bot.jar from Bot.java (JDK 11 or later, standard library only); run it as "java -jar bot.jar".
set -e
cd "$(dirname "$0")"
rm -rf classes
javac -encoding UTF-8 -d classes Bot.java
jar --create --file bot.jar --main-class Bot -C classes .
rm -rf classes
